import { fail, OK } from "../pipeline/result.js";
import { SluiceError } from "../errors/sluice-error.js";
import type { StageRunner } from "../engine/stages.js";
import { instanceOf } from "./instance.js";
import { runOperation } from "../engine/run-operation.js";
import { callOnce } from "../engine/real-call.js";
import type { BoundaryOptions, BoundaryResult, CallContext, OperationContext } from "../engine/call-types.js";

/** What `host.embed` takes: the embedding model and the texts. */
export interface EmbedRequest { model: string; texts: string[] }
/** The vectors `host.embed` returns, their dimension and the embedding chain's signature. */
export interface EmbedOutput { vectors: number[][]; dimension: number; signature: string }
/** Options of `host.embed`: the boundary options and the index signature to hold the chain to. */
export interface EmbedOptions extends BoundaryOptions {
  /** The signature the index was built with; a different chain is refused before anything runs. */
  expectSignature?: string;
}

/** What an embedding call needs from the host besides its stages: the chain's index signature. */
export interface EmbedRunner extends StageRunner {
  embeddingSignature(ctx: CallContext, model: string): string;
  readonly release: { readonly revision: number };
}

export async function embed(host: EmbedRunner, ctx: CallContext, request: EmbedRequest, execute: (texts: string[], op: OperationContext) => Promise<{ vectors: number[][] }>, options: EmbedOptions = {}): Promise<BoundaryResult<EmbedOutput>> {
  const signature = host.embeddingSignature(ctx, request.model);
  if (options.expectSignature !== undefined && options.expectSignature !== signature) {
    const error = new SluiceError("EMBEDDING_SIGNATURE_MISMATCH", `the embedding chain's signature ${signature.slice(0, 12)}… differs from the index's ${options.expectSignature.slice(0, 12)}…; rebuild the index or embed with the chain it was built with`, { expected: options.expectSignature, actual: signature });
    return { ok: false, error, facts: { operationId: "", revision: host.release.revision, called: false, realStatus: "not_started", attempts: 0, idempotencyKey: "", durationMs: 0 }, hooks: [], annotations: {} };
  }
  return runOperation<{ vectors: number[][] }, EmbedOutput>(host, {
    operation: "embedding",
    ctx,
    before: "model.embedding.before",
    after: "model.embedding.after",
    payload: { model: request.model, texts: request.texts },
    target: { purpose: "embedding", modelId: request.model, instance: instanceOf(ctx), spaceId: ctx.spaceId },
    finalCheck: () => OK,
    served: () => fail("OUTCOME_NOT_ALLOWED", "embedding calls cannot be short-circuited"),
    call: callOnce((input, op) => execute(input.texts as string[], op), options.retries),
    checkReal: (real, input) => {
      const texts = input.texts as string[];
      if (!Array.isArray(real?.vectors) || real.vectors.length !== texts.length) {
        return fail("EMBEDDING_SHAPE_INVALID", `the embedding call returned ${real?.vectors?.length ?? "no"} vectors for ${texts.length} texts`);
      }
      const dimension = real.vectors[0]?.length ?? 0;
      if (real.vectors.some((v) => !Array.isArray(v) || v.length !== dimension)) return fail("EMBEDDING_SHAPE_INVALID", "the embedding vectors differ in dimension");
      return OK;
    },
    afterPayload: (_input, real) => ({ model: request.model, vectors: real.vectors, dimension: Math.max(1, real.vectors[0]?.length ?? 1) }),
    output: (_after, real) => ({ vectors: real.vectors, dimension: real.vectors[0]?.length ?? 0, signature }),
  });
}
