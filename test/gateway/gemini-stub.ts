/**
 * A tiny Gemini API upstream: generateContent answers "You said: <text>" (the last user
 * content's text); streamGenerateContent (`alt=sse`) sends it in 4-character responses, the
 * last with finishReason STOP and usage. With function declarations (and a user text last)
 * it calls the first function; after a functionResponse it answers "tool said: <response>".
 * With thinkingConfig.includeThoughts a thought part comes first. "[gate]" waits for the
 * test's gate after the first response; "[last-waits]" sends the last piece, with finishReason,
 * once the gate opens. countTokens counts the characters of the contents' JSON.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Gate } from "../helpers/gated-source.js";

export interface GeminiStub {
  url: string;
  bodies: Record<string, any>[];
  headers: IncomingMessage["headers"][];
  paths: string[];
  gate?: Gate;
  /** When set, answers every request itself (a test's own upstream behaviour); the request is still kept above. */
  handle?: (req: IncomingMessage, body: Record<string, any>, res: ServerResponse) => void | Promise<void>;
  close(): Promise<void>;
}

export const THOUGHT = "Thinking about a greeting.";
export const THOUGHT_SIGNATURE = "CiQB0e2Kb+/=sïg✓";

export async function startGeminiStub(): Promise<GeminiStub> {
  const stub: GeminiStub = { url: "", bodies: [], headers: [], paths: [], close: async () => {} };
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = raw === "" ? {} : JSON.parse(raw);
    stub.bodies.push(body);
    stub.headers.push(req.headers);
    stub.paths.push(req.url ?? "");
    if (stub.handle) return stub.handle(req, body, res);
    if (req.url?.includes(":countTokens")) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ totalTokens: JSON.stringify(body.contents).length }));
    }
    const last = body.contents.at(-1);
    const response = last.parts.find((p: any) => p.functionResponse)?.functionResponse;
    const text = last.parts.map((p: any) => p.text ?? "").join("");
    const fn = body.tools?.flatMap((t: any) => t.functionDeclarations ?? [])[0];
    const call = fn && !response ? { functionCall: { name: fn.name, args: { city: "Paris" } }, thoughtSignature: THOUGHT_SIGNATURE } : undefined;
    const answer = response ? `tool said: ${JSON.stringify(response.response)}` : call ? "Let me check." : `You said: ${text}`;
    const thought = body.generationConfig?.thinkingConfig?.includeThoughts === true;
    const usageMetadata = { promptTokenCount: text.length, candidatesTokenCount: 9, totalTokenCount: text.length + 9 };
    const wrap = (parts: unknown[], finish?: string) => ({
      candidates: [{ content: { role: "model", parts }, ...(finish ? { finishReason: finish } : {}), index: 0 }],
      ...(finish ? { usageMetadata } : {}), modelVersion: "gemini-stub", responseId: "resp-stub",
    });
    if (!req.url?.includes(":streamGenerateContent")) {
      const parts = [...(thought ? [{ text: THOUGHT, thought: true }] : []), { text: answer }, ...(call ? [call] : [])];
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(wrap(parts, "STOP")));
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    const send = (json: unknown) => res.write(`data: ${JSON.stringify(json)}\r\n\r\n`);
    if (thought) send(wrap([{ text: THOUGHT, thought: true }]));
    // "[last-waits]": the last piece carries finishReason itself (as Gemini sends it), after the gate.
    const lastWaits = text.includes("[last-waits]") && !call;
    for (let i = 0; i < answer.length; i += 4) {
      if (lastWaits && i + 4 >= answer.length) { await stub.gate!.wait(); send(wrap([{ text: answer.slice(i) }], "STOP")); break; }
      send(wrap([{ text: answer.slice(i, i + 4) }]));
      if (i === 0 && text.includes("[gate]")) await stub.gate!.wait();
    }
    if (!lastWaits) send(wrap(call ? [call] : [], "STOP"));
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stub.close = () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return stub;
}
