/**
 * The load generator's side of the `sluice serve` scenarios: the official `openai` client,
 * as an application would use it, against the gateway and (for comparison) straight against
 * the fake upstream. Every answer is checked against the text it must be; times in µs.
 */
import OpenAI from "openai";
import { stats, type Stats } from "./measure.js";

/** Where a client sends its calls: an OpenAI base URL with its key, the model and the answer it must get. */
export interface ClientTarget { name: string; baseURL: string; apiKey: string; model: string; expect: string; headers?: Record<string, string> }

export type OpenAICommand =
  | { cmd: "openai-latency"; targets: ClientTarget[]; warmup: number; samples: number; perRound: number }
  | { cmd: "openai-concurrent"; target: ClientTarget; clients: number; rounds: number }
  | { cmd: "openai-streams"; targets: ClientTarget[]; streams: number; rounds: number };

const MESSAGES = [{ role: "system" as const, content: "You are terse." }, { role: "user" as const, content: "Hello, how are you today?" }];
const clients = new Map<string, OpenAI>();
/** No retries: a refused or reset request counts as an error instead of being hidden. */
const clientOf = (t: ClientTarget): OpenAI => {
  let c = clients.get(t.name);
  if (!c) clients.set(t.name, (c = new OpenAI({ baseURL: t.baseURL, apiKey: t.apiKey, maxRetries: 0, timeout: 60_000, ...(t.headers ? { defaultHeaders: t.headers } : {}) })));
  return c;
};

async function complete(t: ClientTarget): Promise<void> {
  const r = await clientOf(t).chat.completions.create({ model: t.model, messages: MESSAGES });
  const text = r.choices[0]?.message.content;
  if (text !== t.expect) throw new Error(`${t.name}: answer ${JSON.stringify(text)}, expected ${JSON.stringify(t.expect)}`);
}

/** Sequential calls, the targets interleaved in rounds of perRound after warmup calls each. */
export async function openaiLatency(c: Extract<OpenAICommand, { cmd: "openai-latency" }>): Promise<Record<string, Stats>> {
  const times = new Map<string, number[]>(c.targets.map((t) => [t.name, []]));
  for (const t of c.targets) for (let i = 0; i < c.warmup; i++) await complete(t);
  for (let done = 0; done < c.samples; done += c.perRound) {
    for (const t of c.targets) {
      const out = times.get(t.name)!;
      for (let i = 0; i < c.perRound && done + i < c.samples; i++) {
        const t0 = performance.now();
        await complete(t);
        out.push((performance.now() - t0) * 1000);
      }
    }
  }
  return Object.fromEntries([...times].map(([k, v]) => [k, stats(v)]));
}

/** `clients` calls at once (each on its own connection: the client's pool has no limit), `rounds` times. */
export async function openaiConcurrent(c: Extract<OpenAICommand, { cmd: "openai-concurrent" }>): Promise<{ latency: Stats; errors: number; wrong: number; errorSamples: string[] }> {
  const lat: number[] = [];
  const errorSamples: string[] = [];
  let errors = 0;
  let wrong = 0;
  for (let round = 0; round < c.rounds; round++) {
    await Promise.all(Array.from({ length: c.clients }, async () => {
      const t0 = performance.now();
      try {
        await complete(c.target);
        lat.push((performance.now() - t0) * 1000);
      } catch (err) {
        if (String(err).includes("expected")) wrong++;
        else errors++;
        if (errorSamples.length < 5) errorSamples.push(String((err as Error).message ?? err).slice(0, 200));
      }
    }));
  }
  return { latency: stats(lat), errors, wrong, errorSamples };
}

/** `streams` streamed calls at once per target and round: time to the first text and to the end, and the text checked. */
export async function openaiStreams(c: Extract<OpenAICommand, { cmd: "openai-streams" }>): Promise<Record<string, { firstText: Stats; whole: Stats; errors: number; wrong: number }>> {
  const out: Record<string, { first: number[]; whole: number[]; errors: number; wrong: number }> = Object.fromEntries(c.targets.map((t) => [t.name, { first: [], whole: [], errors: 0, wrong: 0 }]));
  for (let round = 0; round < c.rounds; round++) {
    for (const t of c.targets) {
      const r = out[t.name]!;
      await Promise.all(Array.from({ length: c.streams }, async () => {
        const t0 = performance.now();
        let first = 0;
        let text = "";
        try {
          const stream = await clientOf(t).chat.completions.create({ model: t.model, messages: MESSAGES, stream: true });
          for await (const chunk of stream) {
            const piece = chunk.choices[0]?.delta?.content;
            if (piece) { if (first === 0) first = performance.now(); text += piece; }
          }
          if (text !== t.expect) { r.wrong++; return; }
          r.first.push((first - t0) * 1000);
          r.whole.push((performance.now() - t0) * 1000);
        } catch {
          r.errors++;
        }
      }));
    }
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, { firstText: stats(v.first), whole: stats(v.whole), errors: v.errors, wrong: v.wrong }]));
}
