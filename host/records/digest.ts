import { createHash } from "node:crypto";
import { canonicalJson } from "../pipeline/canonical-json.js";

/**
 * sha256 (hex) of a value's canonical JSON: the same data gives the same digest whatever
 * its key order, so an auditor holding the payload can prove what a hook saw.
 */
export function digestOf(value: unknown): string {
  let text: string;
  try { text = canonicalJson(value); } catch { text = JSON.stringify(value) ?? "null"; }
  return createHash("sha256").update(text).digest("hex");
}
