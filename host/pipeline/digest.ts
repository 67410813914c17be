/**
 * Digests in records and audit. Every digest that can cover user data (operation refs,
 * audit input, output and patch digests, payload store refs) is an HMAC-SHA-256 keyed with
 * a per-deployment secret: a plain hash of a 4-digit PIN or a 6-digit code is reversed by
 * trying every value in a second, a keyed one is not without the key. The key is the
 * deployment's (Registry: `<data>/digest.key`, or the operator's own); anyone holding it
 * and the payload can still prove what a hook saw. Plain sha256 stays for public content
 * only (module bytes, `codeSha256`).
 */
import { hash, randomBytes } from "node:crypto";
import { canonicalJson } from "./canonical-json.js";
import { SluiceError } from "../errors/sluice-error.js";

/**
 * The unkeyed content hash: sha256 (hex) of a value's canonical JSON, the same whatever
 * its key order. The pipeline core computes it in the worker where a patch is known; the
 * host keys it before it is stored or returned ({@link Digester.rekey}). Never store it.
 */
export function digestOf(value: unknown): string {
  let text: string;
  try { text = canonicalJson(value); } catch { text = JSON.stringify(value) ?? "null"; }
  return hash("sha256", text, "hex");
}

const BLOCK = 64;

/**
 * HMAC-SHA-256 (RFC 2104) over one-shot hashes: the same digest as `createHmac`, without
 * a native Hmac object per call (several a request, each a handle the young-generation
 * collector must visit).
 */
function hmacSha256(key: Buffer): (message: string) => string {
  const block = Buffer.alloc(BLOCK);
  (key.byteLength > BLOCK ? hash("sha256", key, "buffer") : key).copy(block);
  const ipad = Buffer.from(block.map((b) => b ^ 0x36));
  const opad = Buffer.from(block.map((b) => b ^ 0x5c));
  return (message) => {
    const inner = hash("sha256", Buffer.concat([ipad, Buffer.from(message, "utf8")]), "buffer");
    return hash("sha256", Buffer.concat([opad, inner]), "hex");
  };
}

/** Keyed digests of one deployment. */
export interface Digester {
  /** HMAC-SHA-256 (hex) of the value's canonical JSON content hash. */
  of(value: unknown): string;
  /** The keyed digest of a content hash {@link digestOf} returned: `rekey(digestOf(v)) === of(v)`. */
  rekey(contentHash: string): string;
}

/** Secrets shorter than this are refused. */
export const DIGEST_SECRET_MIN_BYTES = 16;

/**
 * A keyed digester (HMAC-SHA-256) for the digests stored in records, so a payload cannot be guessed from its digest.
 * @example
 * const digests = createDigester(readFileSync("data/digest.key", "utf8").trim());
 * digests.of(toolResult) === record.realResultRef; // an auditor with the key checks a payload
 */
export function createDigester(secret: Uint8Array | string): Digester {
  const key = typeof secret === "string" ? Buffer.from(secret, "utf8") : Buffer.from(secret);
  if (key.byteLength < DIGEST_SECRET_MIN_BYTES) throw new SluiceError("CONFIG_INVALID", `the digest secret is ${key.byteLength} bytes; use at least ${DIGEST_SECRET_MIN_BYTES} (32 random bytes is the default)`);
  const hmac = hmacSha256(key);
  const rekey = (contentHash: string) => hmac(`sluice-digest-v1\u0000${contentHash}`);
  return { rekey, of: (value) => rekey(digestOf(value)) };
}

/** A digester with a random key: digests are comparable within this process only. */
export function ephemeralDigester(): Digester {
  return createDigester(randomBytes(32));
}

/** The stage's step reports with their content hashes keyed, before anyone outside the host sees them. */
export function keyReports<T extends { reports: { patchDigest?: string; outputDigest?: string }[] }>(result: T, digests: Digester): T {
  for (const report of result.reports) {
    if (report.patchDigest !== undefined) report.patchDigest = digests.rekey(report.patchDigest);
    if (report.outputDigest !== undefined) report.outputDigest = digests.rekey(report.outputDigest);
  }
  return result;
}
