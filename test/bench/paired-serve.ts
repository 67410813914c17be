/**
 * Two builds of `sluice serve` in one run, for before/after ratios on a loaded machine: this
 * checkout's build and another checkout's (its repository root, built), each a child with its
 * defaults (serve-process.ts of each build) behind one load generator and one fake upstream
 * (gateway-load.ts), with scenario 12's three guest hooks. Sequential calls interleaved
 * (direct, other and this without hooks, other and this with three), CPU per request in
 * alternating rounds, then 1,000 concurrent clients and an open-loop 2,000 requests/s,
 * alternating other, this, other, this. Not a scenario of `npm run bench`: it compares builds.
 * Usage: node dist/test/bench/paired-serve.js <other checkout> [warmup] [samples] [clients] [rateMs]
 */
import { fork } from "node:child_process";
import { loadavg } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { LoadCommand, LoadReply, RateReply } from "./gateway-load.js";
import { ANSWER } from "./gateway-load.js";
import type { Stats } from "./measure.js";
import type { BenchBinding, ServeProcess } from "./serve-process.js";
import { repoRoot } from "./systems.js";

const [other, ...rest] = process.argv.slice(2);
if (!other) throw new Error("usage: node dist/test/bench/paired-serve.js <other checkout> [warmup] [samples] [clients] [rateMs]");
const [warmup = 300, samples = 1000, clients = 1000, rateMs = 2000] = rest.map(Number);
const HOOKS: readonly BenchBinding[] = [
  { plugin: "prompt-guard", point: "model.chat.before", models: "hooked" },
  { plugin: "pii-redact", point: "model.chat.after", models: "hooked" },
  { plugin: "answer-normalize", point: "model.chat.after", models: "hooked" },
];
const load = () => `load ${loadavg()[0]!.toFixed(2)}`;

const children = [0, 1].map(() => fork(join(repoRoot(), "dist/test/bench/gateway-load.js"), [], { stdio: ["ignore", "inherit", "inherit", "ipc"] }));
const send = <T extends LoadReply>(child: (typeof children)[number], m: LoadCommand): Promise<T> => new Promise((resolve, reject) => {
  child.once("message", (r: LoadReply) => ("error" in r ? reject(new Error(r.error)) : resolve(r as T)));
  child.send(m);
});
const ask = <T extends LoadReply>(m: LoadCommand) => send<T>(children[0]!, m);
const served: Record<"other" | "this", ServeProcess | undefined> = { other: undefined, this: undefined };
try {
  const upstream = `http://127.0.0.1:${(await send<{ port: number }>(children[1]!, { cmd: "upstream" })).port}`;
  for (const [name, root] of [["other", other], ["this", repoRoot()]] as const) {
    const { startServe } = (await import(pathToFileURL(join(root, "dist/test/bench/serve-process.js")).href)) as typeof import("./serve-process.js");
    served[name] = await startServe(upstream, HOOKS);
  }
  const s = served as Record<"other" | "this", ServeProcess>;
  const target = (name: "other" | "this", hooks: boolean) => ({ name: `${name}-${hooks ? 3 : 0}`, baseURL: s[name].gateway, apiKey: s[name].gatewayKey, model: hooks ? "hooked" : "bare", expect: ANSWER });
  const targets = [{ name: "direct", baseURL: `${upstream}/v1`, apiKey: "sk-direct", model: "bare", expect: ANSWER }, target("other", false), target("this", false), target("other", true), target("this", true)];
  console.log(`other = ${other}, this = ${repoRoot()}; ${load()}`);
  const { latency } = await ask<{ latency: Record<string, Stats> }>({ cmd: "openai-latency", targets, warmup, samples, perRound: 50 });
  const d = latency.direct!;
  for (const [k, v] of Object.entries(latency)) console.log(`${k.padEnd(8)} p50 ${v.p50.toFixed(0)} µs (added ${(v.p50 - d.p50).toFixed(0)}), p99 ${v.p99.toFixed(0)} µs (added ${(v.p99 - d.p99).toFixed(0)})`);
  const cpu = new Map<string, number>();
  for (let round = 0; round < 4; round++) {
    for (const t of targets.slice(1)) {
      const server = s[t.name.split("-")[0] as "other" | "this"];
      const before = server.cpuUs();
      await ask({ cmd: "openai-latency", targets: [t], warmup: 0, samples: 100, perRound: 100 });
      cpu.set(t.name, (cpu.get(t.name) ?? 0) + (server.cpuUs() - before) / 100 / 4);
    }
  }
  console.log(`CPU per request: ${[...cpu].map(([k, v]) => `${k} ${v.toFixed(0)} µs`).join(", ")}; ${load()}`);
  for (let round = 0; round < 2; round++) {
    for (const name of ["other", "this"] as const) {
      const { concurrent } = await ask<{ concurrent: { latency: Stats; errors: number; wrong: number; errorSamples: string[] } }>({ cmd: "openai-concurrent", target: target(name, true), clients, rounds: 1 });
      console.log(`${clients} concurrent, ${name}: ${concurrent.errors} errors, ${concurrent.wrong} wrong, p50 ${(concurrent.latency.p50 / 1000).toFixed(0)} ms, p99 ${(concurrent.latency.p99 / 1000).toFixed(0)} ms; ${load()}`);
    }
  }
  for (let round = 0; round < 2; round++) {
    for (const name of ["other", "this"] as const) {
      const server = s[name];
      const before = server.cpuUs();
      const r = await ask<RateReply>({
        cmd: "rate", origin: new URL(server.gateway).origin, path: "/v1/chat/completions", auth: `Bearer ${server.gatewayKey}`, rps: 2000, maxInFlight: 1000, durationMs: rateMs,
        body: JSON.stringify({ model: "hooked", messages: [{ role: "system", content: "You are terse." }, { role: "user", content: "Hello, how are you today?" }] }),
      });
      console.log(`2,000/s for ${rateMs} ms, ${name}: ${r.perSecond.toFixed(0)}/s answered, ${r.errors} failed or not sent, p50 ${(r.latency.p50 / 1000).toFixed(0)} ms, p99 ${(r.latency.p99 / 1000).toFixed(0)} ms, CPU ${((server.cpuUs() - before) / Math.max(1, r.completed)).toFixed(0)} µs a request; ${load()}`);
    }
  }
} finally {
  for (const server of Object.values(served)) await server?.close();
  for (const child of children) child.kill();
}
