/**
 * The load generator's side of the `sluice serve` scenarios: the official client of each
 * protocol (`openai`, `@anthropic-ai/sdk`, `@google/genai`), as an application would use it,
 * against the gateway and (for comparison) straight against the fake upstream. Every answer
 * is checked against the text it must be; times in µs.
 */
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { stats, type Stats } from "./measure.js";

/**
 * Where a client sends its calls: a base URL with its key, the model and the answer it must
 * get, and headers sent with every call. `protocol` picks the client (default openai: chat
 * completions; anthropic: Messages; gemini: generateContent), each given the base URL its SDK takes.
 */
export interface ClientTarget { name: string; baseURL: string; apiKey: string; model: string; expect: string; headers?: Record<string, string>; protocol?: "openai" | "anthropic" | "gemini" }

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

const anthropicClients = new Map<string, Anthropic>();
const anthropicOf = (t: ClientTarget): Anthropic => {
  let c = anthropicClients.get(t.name);
  if (!c) anthropicClients.set(t.name, (c = new Anthropic({ baseURL: t.baseURL, apiKey: t.apiKey, maxRetries: 0, timeout: 60_000 })));
  return c;
};
const geminiClients = new Map<string, GoogleGenAI>();
const geminiOf = (t: ClientTarget): GoogleGenAI => {
  let c = geminiClients.get(t.name);
  if (!c) geminiClients.set(t.name, (c = new GoogleGenAI({ apiKey: t.apiKey, httpOptions: { baseUrl: t.baseURL, timeout: 60_000 } })));
  return c;
};
const SYSTEM = MESSAGES[0]!.content;
const PROMPT = MESSAGES[1]!.content;

async function complete(t: ClientTarget): Promise<void> {
  let text: string | null | undefined;
  if (t.protocol === "anthropic") {
    const m = await anthropicOf(t).messages.create({ model: t.model, max_tokens: 256, system: SYSTEM, messages: [{ role: "user", content: PROMPT }] });
    text = m.content.map((b) => (b.type === "text" ? b.text : "")).join("");
  } else if (t.protocol === "gemini") {
    text = (await geminiOf(t).models.generateContent({ model: t.model, contents: PROMPT, config: { systemInstruction: SYSTEM } })).text;
  } else {
    text = (await clientOf(t).chat.completions.create({ model: t.model, messages: MESSAGES })).choices[0]?.message.content;
  }
  if (text !== t.expect) throw new Error(`${t.name}: answer ${JSON.stringify(text)}, expected ${JSON.stringify(t.expect)}`);
}

/** A streamed call's text pieces, as its protocol's client yields them. */
async function* streamed(t: ClientTarget): AsyncGenerator<string> {
  if (t.protocol === "anthropic") {
    const stream = await anthropicOf(t).messages.create({ model: t.model, max_tokens: 256, system: SYSTEM, messages: [{ role: "user", content: PROMPT }], stream: true });
    for await (const e of stream) if (e.type === "content_block_delta" && e.delta.type === "text_delta") yield e.delta.text;
  } else if (t.protocol === "gemini") {
    for await (const r of await geminiOf(t).models.generateContentStream({ model: t.model, contents: PROMPT, config: { systemInstruction: SYSTEM } })) yield r.text ?? "";
  } else {
    for await (const chunk of await clientOf(t).chat.completions.create({ model: t.model, messages: MESSAGES, stream: true })) yield chunk.choices[0]?.delta?.content ?? "";
  }
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
          for await (const piece of streamed(t)) {
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
