import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical-json.js";

/** One hook of an embedding chain, as frozen into a knowledge index. */
export interface EmbeddingChainLink {
  pluginId: string;
  version: string;
  codeSha256: string;
  config: unknown;
}

/**
 * The index signature of an embedding chain (abi/README.md §4.3: hook code version + config +
 * model config): a sha256 hex over canonical JSON, so key order never changes it and
 * any change of code, version, config, chain order or model config does. Documents and
 * queries must be embedded under the same signature.
 * @example embeddingIndexSignature([{ pluginId: "pii", version: "1.0.0", codeSha256, config: {} }], { model: "e5", dimension: 768 })
 */
export function embeddingIndexSignature(chain: readonly EmbeddingChainLink[], modelConfig: unknown): string {
  const canonical = canonicalJson({
    kind: "sluice.embedding-index",
    v: 1,
    chain: chain.map((l) => ({ pluginId: l.pluginId, version: l.version, codeSha256: l.codeSha256, config: l.config })),
    model: modelConfig,
  });
  return createHash("sha256").update(canonical, "utf8").digest("hex");
}
