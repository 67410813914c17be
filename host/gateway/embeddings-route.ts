/**
 * POST /v1/embeddings through the host's embedding boundary. The upstream is always asked
 * for floats, because hooks and the host's shape checks work on vectors; a client that
 * asked for base64 (the openai npm client's default) gets the vectors encoded as it expects.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { SluiceError } from "../errors/sluice-error.js";
import type { Host } from "../host.js";
import { callerOf } from "./auth.js";
import { clientSignal } from "./client-signal.js";
import { replyError } from "./openai-error.js";
import type { Upstream } from "./upstream.js";
import type { WireEmbeddingBody } from "./wire.js";
import { withKeys } from "../objects/with-keys.js";
import { logUnfinishedRecord } from "./unfinished-record.js";

function invalid(message: string, param: string): SluiceError {
  return new SluiceError("REQUEST_INVALID", message, { param });
}

export function readEmbeddingBody(body: unknown): WireEmbeddingBody & { input: string | string[] } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalid("the request body must be a JSON object", "body");
  const b = body as WireEmbeddingBody;
  if (typeof b.model !== "string" || b.model === "") throw invalid("model must be a non-empty string", "model");
  const texts = typeof b.input === "string" || (Array.isArray(b.input) && b.input.length > 0 && b.input.every((t) => typeof t === "string"));
  // Token arrays cannot be shown to hooks as text, so they are refused rather than passed around them.
  if (!texts) throw invalid("input must be a string or a non-empty array of strings (token arrays are not supported by the gateway)", "input");
  if (b.encoding_format !== undefined && b.encoding_format !== "float" && b.encoding_format !== "base64") throw invalid("encoding_format must be float or base64", "encoding_format");
  return b as WireEmbeddingBody & { input: string | string[] };
}

/** Decodes a little-endian float32 base64 vector, for upstreams that answer base64 whatever was asked. */
function vectorOf(embedding: unknown): number[] {
  if (Array.isArray(embedding) && embedding.every((n) => typeof n === "number")) return embedding;
  if (typeof embedding === "string") {
    const bytes = Buffer.from(embedding, "base64");
    return Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 4)));
  }
  throw new SluiceError("UPSTREAM_FAILED", "the upstream sent an embedding that is neither a number array nor base64");
}

function base64Of(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString("base64");
}

export function embeddings(host: Host, upstream: Upstream) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const caller = callerOf(request);
    const body = readEmbeddingBody(request.body);
    const texts = typeof body.input === "string" ? [body.input] : body.input;
    let usage: unknown;
    let model: string | undefined;
    const r = await host.embed({ spaceId: caller.spaceId, actorId: caller.id, purpose: "embedding", signal: clientSignal(reply.raw) }, { model: body.model, texts }, async (effective, op) => {
      const json = await upstream.json("/embeddings", withKeys(body, { input: effective, encoding_format: "float" }), op.signal);
      if (!Array.isArray(json.data)) throw new SluiceError("UPSTREAM_FAILED", "the upstream's embedding answer has no data array");
      usage = json.usage;
      model = typeof json.model === "string" ? json.model : undefined;
      const data = [...(json.data as { index?: number; embedding?: unknown }[])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
      return { vectors: data.map((d) => vectorOf(d.embedding)) };
    });
    reply.header("x-sluice-operation-id", r.facts.operationId);
    logUnfinishedRecord(reply, r.facts);
    if (!r.ok) return replyError(reply, r.error);
    const encode = body.encoding_format === "base64" ? base64Of : (v: number[]) => v;
    return {
      object: "list",
      data: r.output.vectors.map((v, index) => ({ object: "embedding", index, embedding: encode(v) })),
      model: model ?? body.model,
      usage: typeof usage === "object" && usage !== null ? usage : { prompt_tokens: 0, total_tokens: 0 },
    };
  };
}
