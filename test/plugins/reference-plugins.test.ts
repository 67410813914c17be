import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OUTCOME_KINDS, type OutcomeKind } from "../../abi/envelope.js";
import type { Binding } from "../../host/pipeline/bindings.js";
import type { ResolvedHook } from "../../host/engine/hooks.js";
import { POINT_NAMES, type PointName } from "../../host/pipeline/points.js";
import { runStage } from "../../host/engine/stage.js";
import { schemaProblem } from "../../host/pipeline/validators.js";
import { createSandbox, type Sandbox } from "../../host/sandbox/index.js";
import { loadPlugin, loadSamples, readManifest, runSample, type LoadedPlugin, type Sample } from "../../host/toolchain/samples.js";
import { pluginWasm, repoRoot } from "../helpers/fixtures.js";
import { nativePluginWasm } from "../helpers/native-guests.js";
import { languageOf } from "../../host/toolchain/language.js";
import { readFileSync } from "node:fs";

const pluginsDir = path.join(repoRoot, "plugins");
const NAMES = readdirSync(pluginsDir, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(path.join(pluginsDir, d.name, "hook.yaml")))
  .map((d) => d.name)
  .sort();
const SAMPLES: Record<string, Sample[]> = {};
for (const name of NAMES) SAMPLES[name] = await loadSamples(path.join(pluginsDir, name));

// The manifests ask for 50 ms per call; a call takes about a millisecond, but on a busy
// two-core machine a worker can be descheduled for longer, and a timed-out worker is
// replaced by a cold one. The tests check behaviour, so they run with a looser limit.
const TEST_LIMITS = { timeoutMs: 2000 };

let sandbox: Sandbox;
const loaded: Record<string, LoadedPlugin> = {};
beforeAll(async () => {
  sandbox = createSandbox({ workers: 2 });
  for (const name of NAMES) {
    // Rust and C plugins are built here when build/ has no fresh copy (their toolchains are optional for `npm ci`).
    const manifest = await readManifest(path.join(pluginsDir, name));
    const language = languageOf(manifest);
    const wasm = language === "assemblyscript" ? pluginWasm(name) : await nativePluginWasm(name, language, manifest.entry);
    loaded[name] = await loadPlugin(sandbox, path.join(pluginsDir, name), wasm, { limits: TEST_LIMITS });
  }
});
afterAll(() => sandbox.close());

describe("reference plugins: every sample passes through the real sandbox", () => {
  for (const name of NAMES) {
    describe(name, () => {
      it("has samples", () => expect(SAMPLES[name]!.length).toBeGreaterThan(0));
      for (const sample of SAMPLES[name]!) {
        it(sample.name, async () => {
          const { plugin, manifest } = loaded[name]!;
          const r = await runSample(sandbox, plugin, plugin.grants, sample, { failurePolicy: manifest.failure_policy ?? "fail-closed" });
          expect(r.mismatches, `${path.basename(sample.file ?? "")}\n${r.mismatches.join("\n")}`).toEqual([]);
          expect(r.pass).toBe(true);
        });
      }
    });
  }
});

describe("reference plugins in Rust and C", () => {
  const ports = NAMES.filter((n) => /-(rust|c)$/.test(n));
  it("port order-search-limit and audit-tag to both languages", () => {
    expect(ports).toEqual(["audit-tag-c", "audit-tag-rust", "order-search-limit-c", "order-search-limit-rust"]);
  });
  for (const name of ports) {
    const original = name.replace(/-(rust|c)$/, "");
    it(`${name} runs exactly the samples of ${original}`, () => {
      const files = (n: string) => SAMPLES[n]!.map((s) => [path.basename(s.file ?? ""), readFileSync(s.file!, "utf8")]);
      expect(files(name)).toEqual(files(original));
    });
  }
});

describe("reference plugins: coverage", () => {
  it("together bind every hook point", async () => {
    const points = new Set<string>();
    for (const name of NAMES) Object.keys((await readManifest(path.join(pluginsDir, name))).points).forEach((p) => points.add(p));
    expect([...points].sort()).toEqual([...POINT_NAMES].sort());
  });

  it("together produce every outcome in their samples", () => {
    const seen = new Set<OutcomeKind>();
    for (const samples of Object.values(SAMPLES)) {
      for (const s of samples) {
        for (const e of [s.expect, ...(s.sequence ?? []).map((step) => step.expect)]) {
          if (!e) continue;
          if (e.outcome && e.outcome !== "failed") seen.add(e.outcome);
          if (e.blocked) seen.add("block");
          (e.outcomes ?? []).forEach((o) => o !== "failed" && seen.add(o));
        }
      }
    }
    // Streams that redact show it in the text, not in `outcomes`: count those too.
    if (SAMPLES["pii-redact"]!.some((s) => s.chunks && s.expect?.emitted?.includes("["))) seen.add("redact");
    expect([...seen].sort()).toEqual([...OUTCOME_KINDS].sort());
  });

  it("maps the manifest's limits, capabilities and grants onto the loaded plugin", async () => {
    const { plugin } = await loadPlugin(sandbox, path.join(pluginsDir, "order-search-limit"), pluginWasm("order-search-limit"));
    expect(plugin.module.limits).toMatchObject({ memoryBytes: 16 * 1024 * 1024, timeoutMs: 200, inputBytes: 256 * 1024, outputBytes: 64 * 1024 });
    expect(plugin.grants).toEqual({ "tool.before": { read: ["/tool_id", "/name", "/arguments"], write: ["/arguments"] } });
    expect(plugin.ref).toBe("order-search-limit@1.0.0");
    expect(loaded["response-cache"]!.plugin.module.capabilities).toEqual(["kv"]);
    // A point granted no write fields may write nothing.
    expect(loaded["prompt-guard"]!.plugin.grants["model.chat.before"]).toEqual({ read: ["/messages"], write: [] });
  });
});

// ---------------------------------------------------------------------------------------
// Targeted tests, straight through runStage.

let seq = 0;
function hook(name: string, point: PointName, config: unknown = {}, over: Partial<Binding> = {}): ResolvedHook {
  const { plugin, manifest } = loaded[name]!;
  const fields = {
    id: `t-${name}-${++seq}`, hookRef: plugin.ref, point, match: {}, priority: 100, order: 0, timeoutMs: plugin.module.limits.timeoutMs,
    failurePolicy: manifest.failure_policy ?? "fail-closed", observeOnly: false, config, enabled: true, mandatory: false, ...over,
  };
  // A plugin bound once per point pairs by its hook ref (pipeline/pairs.ts).
  const binding: Binding = { ...fields, pair: over.pair ?? `ref:${fields.hookRef}` };
  return { kind: "guest", binding, plugin };
}

const ctx = (spaceId = "space-a") => ({
  space_id: spaceId, actor_id: "u1", run_id: "r1", instance_id: "main", operation_id: "op1", parent_operation_id: null,
  call_id: "c1", purpose: "action", published_revision: 1, deadline: null,
});
const signal = new AbortController().signal;

/** Streams `chunks` through one binding, carrying its hold; returns what each chunk emitted. */
async function stream(h: ResolvedHook, chunks: readonly string[], requestId = "req-1"): Promise<{ emitted: string[]; blocked?: string; outcomes: string[]; annotations: Record<string, unknown> }> {
  let holds: readonly string[] = [""];
  const emitted: string[] = [];
  const outcomes: string[] = [];
  let annotations: Record<string, unknown> = {};
  for (const [i, delta] of chunks.entries()) {
    const r = await runStage(sandbox, {
      point: "model.chat.chunk", context: ctx(), hooks: [h], holds, signal,
      payload: { request_id: requestId, chunk_index: i, is_last: i === chunks.length - 1, delta, model: "gpt-x" },
    });
    expect(r.failure, JSON.stringify(r.failure)).toBeUndefined();
    outcomes.push(r.reports[0]!.outcome);
    annotations = { ...annotations, ...r.reports[0]!.annotations };
    if (r.stop) return { emitted, blocked: r.stop.kind === "block" ? r.stop.code : r.stop.kind, outcomes, annotations };
    emitted.push(String(r.payload.delta));
    holds = r.holds!;
  }
  return { emitted, outcomes, annotations };
}

function splits(text: string, at: readonly number[]): string[] {
  const cuts = [0, ...at, text.length];
  return cuts.slice(1).map((end, i) => text.slice(cuts[i], end));
}

describe("pii-redact on streams", () => {
  const text = "Write to alice.smith@example.com now, or call +1 (555) 123-4567. Card 4111 1111 1111 1111 ok, ref 4111 1111 1111 1112.";
  const expected = "Write to [email] now, or call [phone]. Card [card] ok, ref 4111 1111 1111 1112.";
  const secrets = ["alice", "smith", "example", "555", "123-4567", "4111 1111 1111 1111"];

  it("redacts whatever the split into two chunks, and never emits a fragment", async () => {
    const h = hook("pii-redact", "model.chat.chunk");
    for (let k = 1; k < text.length; k++) {
      const { emitted, blocked } = await stream(h, splits(text, [k]));
      expect(blocked).toBeUndefined();
      expect(emitted.join(""), `split at ${k}`).toBe(expected);
      for (const piece of emitted) for (const secret of secrets) expect(piece, `split at ${k}`).not.toContain(secret);
    }
  });

  it("redacts a value cut into one-character chunks", async () => {
    const { emitted } = await stream(hook("pii-redact", "model.chat.chunk"), [...text]);
    expect(emitted.join("")).toBe(expected);
    // No chunk ever let a piece of the e-mail through: its characters only leave as "[email]".
    const beforeEmail = emitted.join("").indexOf("[email]");
    expect(emitted.join("").slice(0, beforeEmail)).toBe("Write to ");
  });

  it("redacts the e-mail at every three-way split", async () => {
    const email = "x ann.lee@mail.example.org y";
    const h = hook("pii-redact", "model.chat.chunk");
    for (let a = 1; a < email.length - 1; a += 2) {
      for (let b = a + 1; b < email.length; b += 3) {
        const { emitted } = await stream(h, splits(email, [a, b]));
        expect(emitted.join(""), `splits ${a},${b}`).toBe("x [email] y");
        expect(emitted.some((p) => p.includes("@") || p.includes("ann") || p.includes("example"))).toBe(false);
      }
    }
  });

  it("blocks a stream on a card when block_on_card is set, before any of it is emitted", async () => {
    const { emitted, blocked } = await stream(hook("pii-redact", "model.chat.chunk", { block_on_card: true }), ["Pay with 4111 ", "1111 1111 ", "1111 today", " please"]);
    expect(blocked).toBe("pii.card");
    expect(emitted.join("")).toBe("Pay with ");
  });

  it("redacts across a stream of 2,000 chunks, every card and address however the chunks split them", async () => {
    // Its speed (chunks a second) is bench scenario 6's, measured beside floors on an idle machine.
    const h = hook("pii-redact", "model.chat.chunk");
    const words = "The quick brown fox writes to bob@example.com and calls 555-867-5309 about card 4111 1111 1111 1111 today. ".split(/(?<= )/);
    const chunks = Array.from({ length: 2000 }, (_, i) => words[i % words.length]!);
    const { emitted } = await stream(h, chunks);
    expect(emitted.join("")).not.toContain("bob@example.com");
    expect(emitted.join("")).not.toContain("4111 1111 1111 1111");
    expect(emitted.join("").split("[card]").length - 1).toBe(Math.floor(2000 / words.length) + (2000 % words.length > 16 ? 1 : 0));
  });
});

describe("pii-redact: card numbers are Luhn-checked", () => {
  async function answer(content: string, config: unknown = {}) {
    const payload = { model: "gpt-x", content, tool_calls: [], finish_reason: "stop", usage: { input_tokens: 1, output_tokens: 1 } };
    const r = await runStage(sandbox, { point: "model.chat.after", context: ctx(), payload, hooks: [hook("pii-redact", "model.chat.after", config)], signal });
    expect(r.failure).toBeUndefined();
    return { outcome: r.reports[0]!.outcome, content: r.payload.content as string, stop: r.stop };
  }
  const valid = ["4111111111111111", "4111 1111 1111 1111", "4111-1111-1111-1111", "5555555555554444", "378282246310005", "6011111111111117", "4012888888881881"];
  for (const card of valid) {
    it(`redacts the Luhn-valid ${card}`, async () => {
      expect(await answer(`pay ${card} now`)).toMatchObject({ outcome: "redact", content: "pay [card] now" });
    });
    const broken = card.slice(0, -1) + String((Number(card.at(-1)) + 1) % 10);
    it(`leaves the Luhn-invalid ${broken} alone`, async () => {
      expect(await answer(`pay ${broken} now`)).toMatchObject({ outcome: "continue", content: `pay ${broken} now` });
    });
  }
  it("blocks instead when block_on_card is set", async () => {
    const r = await answer("pay 4111111111111111", { block_on_card: true });
    expect(r.outcome).toBe("block");
    expect(r.stop).toMatchObject({ kind: "block", code: "pii.card" });
  });
});

describe("workspace-path-guard: traversal variants", () => {
  const config = { workspace: "/srv/ws", path_args: ["path"] };
  async function decide(p: unknown) {
    const payload = { tool_id: "t-fs", name: "read_file", schema: { type: "object" }, arguments: { path: p }, call_id: "c1" };
    const r = await runStage(sandbox, { point: "tool.before", context: ctx(), payload, hooks: [hook("workspace-path-guard", "tool.before", config)], signal });
    expect(r.failure).toBeUndefined();
    return r.stop?.kind === "reject" ? r.stop.code : r.reports[0]!.outcome;
  }
  const refused = [
    "../secret", "..", "a/../../b", "./../x", "a/./b/../../..", "/etc/passwd", "/srv", "/srv/ws/../wsx", "/srv/wsx", "/srv/ws2/a",
    "%2e%2e/x", "%2E%2E%2Fx", "..%2fx", "a%2F..%2F..%2Fb", "%252e%252e%252f", "%25252e", "..%5c..%5cwin", "%00",
    "..\\x", "a\\b", "x\u0000y", "\uff0e\uff0e/x", "..\u2215x", "~/.ssh", "~root/x", "C:/x", "c:\\x", "line\nbreak",
  ];
  for (const p of refused) {
    it(`refuses ${JSON.stringify(p)}`, async () => expect(await decide(p)).toBe("path.outside_workspace"));
  }
  const allowed = ["", ".", "a", "a/b/c.txt", "./a", "a/../b", "/srv/ws", "/srv/ws/", "/srv/ws/a/../b", "//srv//ws//a", "na%20me.txt", "100%.txt", "..foo", "foo..", "a/...", "caf\u00e9.md"];
  for (const p of allowed) {
    it(`allows ${JSON.stringify(p)}`, async () => expect(await decide(p)).toBe("continue"));
  }
});

describe("response-cache: miss, store, hit, with kv scoped per (space, plugin)", () => {
  const before = { model: "gpt-x", messages: [{ role: "user", content: "2+2?" }], purpose: "action" };
  const after = { model: "gpt-x", content: "4", tool_calls: [], finish_reason: "stop", usage: { input_tokens: 3, output_tokens: 1 } };

  async function roundTrip(h: { before: ResolvedHook; after: ResolvedHook }, space: string) {
    const b = await runStage(sandbox, { point: "model.chat.before", context: ctx(space), payload: structuredClone(before), hooks: [h.before], signal });
    expect(b.failure).toBeUndefined();
    if (b.stop) return { hit: true as const, result: b.stop.kind === "short_circuit" ? b.stop.result : undefined };
    const a = await runStage(sandbox, { point: "model.chat.after", context: ctx(space), payload: structuredClone(after), hooks: [h.after], carries: b.carries, signal });
    expect(a.failure).toBeUndefined();
    return { hit: false as const, stored: a.reports[0]!.annotations?.cache, carry: b.carries[h.before.binding.pair] };
  }
  // As a release binds a pair: two bindings (one per point) with their own ids.
  const pair = (pluginId = "response-cache") => {
    const base = hook("response-cache", "model.chat.before");
    const plugin = { ...(base as Extract<ResolvedHook, { kind: "guest" }>).plugin, id: pluginId, ref: `${pluginId}@1.0.0` };
    const b = hook("response-cache", "model.chat.before", {}, { hookRef: plugin.ref });
    const a = hook("response-cache", "model.chat.after", {}, { hookRef: plugin.ref });
    return { before: { ...b, plugin } as ResolvedHook, after: { ...a, plugin } as ResolvedHook };
  };
  const space = (label: string) => `space-${label}-${Date.now()}-${++seq}`;

  it("misses, stores under the carried key, then serves a valid chat result", async () => {
    const h = pair();
    const s = space("a");
    const first = await roundTrip(h, s);
    expect(first).toMatchObject({ hit: false, stored: "stored" });
    expect(String((first as { carry: unknown }).carry)).toMatch(/^chat:[0-9a-f]{16}$/);
    const second = await roundTrip(h, s);
    expect(second.hit).toBe(true);
    const result = (second as { result: Record<string, unknown> }).result;
    expect(result).toEqual({ content: "4", tool_calls: [], finish_reason: "stop", usage: { input_tokens: 0, output_tokens: 0 } });
    // What the host makes of a short-circuit result: a valid model.chat.after payload.
    expect(schemaProblem("model.chat.after", { model: "gpt-x", ...result })).toBeNull();
  });

  it("keeps spaces and plugins apart; a plugin's bindings in one space share the store", async () => {
    const a = pair();
    const [s1, s2] = [space("one"), space("two")];
    expect((await roundTrip(a, s1)).hit).toBe(false);
    expect((await roundTrip(a, s1)).hit).toBe(true);
    expect((await roundTrip(a, s2)).hit).toBe(false); // same plugin, other space
    expect((await roundTrip(pair("response-cache-b"), s1)).hit).toBe(false); // same space, other plugin
    expect((await roundTrip(pair(), s1)).hit).toBe(true); // other bindings of the same plugin: its before and after hooks must share
    expect((await roundTrip(a, s2)).hit).toBe(true); // s2 stored its own copy
  });
});

describe("token-meter", () => {
  it("settles on the last chunk even when bound observe-only, and never holds text", async () => {
    const h = hook("token-meter", "model.chat.chunk", {}, { observeOnly: true });
    const chunks = Array.from({ length: 50 }, (_, i) => `word${i} `);
    const total = chunks.join("").length;
    const r = await stream(h, chunks, `req-${Date.now()}`);
    expect(r.emitted).toEqual(chunks);
    expect(r.outcomes.every((o) => o === "continue")).toBe(true);
    expect(r.annotations).toMatchObject({ "usage.output_tokens_estimate": Math.ceil(total / 4), "usage.output_chars": total, "usage.chunks": 50 });
  });

  it("keeps concurrent streams apart by request_id", async () => {
    const h = hook("token-meter", "model.chat.chunk");
    const [a, b] = await Promise.all([stream(h, ["aaaa", "aaaa", "aaaa"], "req-x"), stream(h, ["bb", "bb"], "req-y")]);
    expect(a.annotations["usage.output_chars"]).toBe(12);
    expect(b.annotations["usage.output_chars"]).toBe(4);
  });
});
