/**
 * Loads the golden vectors of abi/vectors/ (format: abi/vectors/README.md) into JS values,
 * for the host codec's tests and for any other codec tested against the same vectors.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** A msgpack byte string: hex, or hex segments with runs written as `{ hex, times }`. */
export type HexSpec = string | Array<string | { hex: string; times: number }>;

export interface CodecVector {
  name: string;
  /** What `encode` is given: integers outside 32 bits as BigInt. */
  encodeInput: unknown;
  /** What `decode` gives: those integers as numbers when safe, BigInt otherwise. */
  decoded: unknown;
  bytes: Uint8Array;
}
export interface InvalidVector { name: string; bytes: Uint8Array; reason: string; kind: "bytes" | "depth" }
export interface NoncanonicalVector { name: string; bytes: Uint8Array; decoded: unknown; canonical: Uint8Array; why: string }
export interface EnvelopeVector { name: string; kind: "request" | "reply"; encodeInput: unknown; decoded: unknown; bytes: Uint8Array }
/**
 * What the host does with a decoded reply (`replies.json`): a module whose marker is
 * `marker`, bound at `point`, sends `value`; the host reads it as the outcome `accepted`,
 * or refuses it with `refused.code`, its message containing `refused.says`.
 */
export interface ReplyVector {
  name: string;
  point: string;
  marker: string;
  value: unknown;
  accepted?: Record<string, unknown>;
  refused?: { code: string; says: string };
}

function findVectorsDir(from: string): string {
  // abi/vectors.ts runs from source (vitest) and from dist/abi/vectors.js: walk up to the repository.
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return path.join(dir, "abi", "vectors", "v1");
    if (path.dirname(dir) === dir) throw new Error(`cannot find package.json above ${from}`);
  }
}

export const VECTORS_DIR = findVectorsDir(path.dirname(fileURLToPath(import.meta.url)));

export function parseHex(spec: HexSpec): Uint8Array {
  const parts = typeof spec === "string" ? [spec] : spec.map((s) => (typeof s === "string" ? s : s.hex.repeat(s.times)));
  return new Uint8Array(Buffer.from(parts.join(""), "hex"));
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

const isTag = (v: object, tag: string): boolean => Object.keys(v).length === 1 && tag in v;

/** Turns tagged JSON into a JS value; `ints` says how `$int` comes out. */
export function untag(tagged: unknown, ints: "bigint" | "auto"): unknown {
  if (Array.isArray(tagged)) return tagged.map((t) => untag(t, ints));
  if (tagged === null || typeof tagged !== "object") return tagged;
  const t = tagged as Record<string, unknown>;
  if (isTag(t, "$int")) {
    const n = BigInt(t.$int as string);
    return ints === "bigint" || n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER) ? n : Number(n);
  }
  if (isTag(t, "$float")) return t.$float as number;
  if (isTag(t, "$bin")) return parseHex(t.$bin as string);
  if (isTag(t, "$repeat")) {
    const { count, item } = t.$repeat as { count: number; item: unknown };
    return Array.from({ length: count }, () => untag(item, ints));
  }
  if (isTag(t, "$text")) {
    const { unit, count } = t.$text as { unit: string; count: number };
    return unit.repeat(count);
  }
  return Object.fromEntries(Object.entries(t).map(([k, v]) => [k, untag(v, ints)]));
}

function load<T>(file: string): T[] {
  return JSON.parse(readFileSync(path.join(VECTORS_DIR, file), "utf8")) as T[];
}

export function loadCodecVectors(): CodecVector[] {
  return load<{ name: string; value: unknown; msgpack: HexSpec }>("codec.json").map((v) => ({
    name: v.name, encodeInput: untag(v.value, "bigint"), decoded: untag(v.value, "auto"), bytes: parseHex(v.msgpack),
  }));
}

export function loadInvalidVectors(): InvalidVector[] {
  return load<{ name: string; msgpack: HexSpec; reason: string; kind?: "depth" }>("invalid.json").map((v) => ({
    name: v.name, bytes: parseHex(v.msgpack), reason: v.reason, kind: v.kind ?? "bytes",
  }));
}

export function loadNoncanonicalVectors(): NoncanonicalVector[] {
  return load<{ name: string; msgpack: HexSpec; value: unknown; canonical: HexSpec; why: string }>("noncanonical.json").map((v) => ({
    name: v.name, bytes: parseHex(v.msgpack), decoded: untag(v.value, "auto"), canonical: parseHex(v.canonical), why: v.why,
  }));
}

export function loadEnvelopeVectors(): EnvelopeVector[] {
  return load<{ name: string; kind: "request" | "reply"; value: unknown; msgpack: HexSpec }>("envelopes.json").map((v) => ({
    name: v.name, kind: v.kind, encodeInput: untag(v.value, "bigint"), decoded: untag(v.value, "auto"), bytes: parseHex(v.msgpack),
  }));
}

export function loadReplyVectors(): ReplyVector[] {
  return load<ReplyVector>("replies.json").map((v) => ({ ...v, value: untag(v.value, "auto") }));
}
