import { createHash } from "node:crypto";
import { canonicalJson } from "../pipeline/canonical-json.js";

/**
 * A JSON copy of error details for an event: an `Error` (e.g. the cause a failed tool
 * threw) becomes `{ name, message }`, and what JSON cannot carry is dropped, so a listener
 * on another service gets the same thing this one does.
 */
export function jsonSafe(value: unknown, depth = 0): unknown {
  if (depth > 8) return "[too deep]";
  if (value instanceof Error) return { name: value.name, message: value.message, ...("code" in value && typeof value.code === "string" ? { code: value.code } : {}) };
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map((v) => jsonSafe(v, depth + 1) ?? null);
  if (typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const safe = jsonSafe(v, depth + 1);
      if (safe !== undefined) out[k] = safe;
    }
    return out;
  }
  return undefined;
}

/** SHA-256 (hex) of the canonical JSON of a value: lets audits compare payloads without holding them. */
/** How an event digests a payload value (the host's keyed digest; {@link digest} when none is given). */
export type ContentDigest = (value: unknown) => string;

export function digest(value: unknown): string {
  let text: string;
  try { text = canonicalJson(value); } catch { text = canonicalJson(jsonSafe(value) ?? null); }
  return createHash("sha256").update(text).digest("hex");
}
