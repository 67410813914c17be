/**
 * The one function that applies a hook's patch (abi/README.md §4.1). Pure: it never
 * mutates its inputs, so the same code runs in a worker and on the main thread.
 */
import type { PatchOp } from "../../abi/envelope.js";
import type { ErrorData } from "../errors/sluice-error.js";
import { canonicalJson } from "./canonical-json.js";
import { FORBIDDEN_SEGMENTS, isUnder, parsePointer } from "./json-pointer.js";
import { getPoint, type Invariant, type PointName, type PointSpec } from "./points.js";
import { fail } from "./result.js";
import { isDeclared } from "./declared-view.js";
import { schemaProblem } from "./validators.js";
import { withKeys } from "../objects/with-keys.js";

/** The write part of a plugin's grant: JSON Pointer prefixes it may patch. Absent = no limit beyond the point's own. */
export interface WriteGrant {
  write?: readonly string[];
}

export type PatchResult = { ok: true; payload: Record<string, unknown> } | { ok: false; error: ErrorData };

type Json = Record<string, unknown> | unknown[];

/**
 * Applies `ops` to a copy of `payload` at `point`, then re-validates the copy.
 * Every path must lie under one of the point's patchable prefixes and, when a grant is
 * given, under one of its write prefixes (PATCH_FORBIDDEN, checked before anything is
 * applied); the result must pass the point's schema and invariants (PATCH_INVALID).
 * @example
 * applyPatch("tool.before", payload, [{ op: "replace", path: "/arguments/limit", value: 100 }])
 * // { ok: true, payload: { ...payload, arguments: { ...payload.arguments, limit: 100 } } }
 */
export function applyPatch(point: PointName, payload: unknown, ops: readonly PatchOp[], grant?: WriteGrant): PatchResult {
  const spec = getPoint(point);
  const paths: string[][] = [];
  for (const [i, op] of ops.entries()) {
    const checked = checkPath(spec, op, i, grant);
    if (!Array.isArray(checked)) return checked;
    paths.push(checked);
  }

  let working: Record<string, unknown>;
  try {
    working = structuredClone(payload) as Record<string, unknown>;
  } catch {
    return fail("PATCH_INVALID", `${point} payload is not plain data and cannot be copied`, { point });
  }
  for (const [i, op] of ops.entries()) {
    const problem = applyOp(working, paths[i]!, op);
    if (problem) return fail("PATCH_INVALID", `patch[${i}] (${op.op} ${op.path}) at ${point}: ${problem}`, { point, index: i, path: op.path });
  }

  const schema = schemaProblem(point, working);
  if (schema !== null) return fail("PATCH_INVALID", `patched ${point} payload fails the point's schema: ${schema}`, { point });
  for (const invariant of spec.invariants) {
    const broken = checkInvariant(invariant, payload, working);
    if (broken) return fail("PATCH_INVALID", `patched ${point} payload breaks a rule of the point: ${broken}`, { point, invariant: invariant.kind });
  }
  return { ok: true, payload: working };
}

/**
 * Applies a `redact` outcome at an after point: its `content` replaces the point's
 * redactable field (model.chat.after `/content`, tool.after `/view`), under the same
 * grant as a patch. Chunks are redacted on the stream instead (see `chunkEmission`).
 */
export function applyRedaction(point: PointName, payload: unknown, content: string, grant?: WriteGrant): PatchResult {
  const target = getPoint(point).redacts;
  if (target === null) return fail("OUTCOME_NOT_ALLOWED", `${point} has no field a redact outcome can replace`, { point, outcome: "redact" });
  return applyPatch(point, payload, [{ op: "replace", path: target, value: content }], grant);
}

function checkPath(spec: PointSpec, op: PatchOp, i: number, grant: WriteGrant | undefined): string[] | { ok: false; error: ErrorData } {
  const where = { point: spec.name, index: i, path: op.path };
  if (op.op !== "add" && op.op !== "replace" && op.op !== "remove") {
    return fail("PATCH_INVALID", `patch[${i}].op must be add, replace or remove, not ${JSON.stringify((op as { op: unknown }).op)}`, where);
  }
  if (op.op !== "remove" && op.value === undefined) return fail("PATCH_INVALID", `patch[${i}] (${op.op} ${op.path}) needs a value`, where);
  const path = typeof op.path === "string" ? parsePointer(op.path) : undefined;
  if (!path) return fail("PATCH_INVALID", `patch[${i}].path ${JSON.stringify(op.path)} is not a JSON Pointer`, where);
  const bad = path.find((segment) => FORBIDDEN_SEGMENTS.has(segment));
  if (bad !== undefined) return fail("PATCH_FORBIDDEN", `patch[${i}].path ${op.path} contains the segment "${bad}", which is never patchable`, where);
  if (!spec.patchable.some((prefix) => isUnder(path, parsePointer(prefix)!))) {
    const allowed = spec.patchable.length ? `patchable fields: ${spec.patchable.join(", ")}` : "nothing is patchable there";
    return fail("PATCH_FORBIDDEN", `patch[${i}].path ${op.path} is not patchable at ${spec.name}; ${allowed}`, withKeys(where, { allowed: spec.patchable }));
  }
  if (!isDeclared(spec.schema, path)) {
    return fail("PATCH_FORBIDDEN", `patch[${i}].path ${op.path} names a field ${spec.name} does not declare; undeclared fields pass through untouched and are never patchable`, withKeys(where, { undeclared: true }));
  }
  if (grant?.write && !grant.write.some((prefix) => { const p = parsePointer(prefix); return p !== undefined && isUnder(path, p); })) {
    const granted = grant.write.length ? `granted write fields: ${grant.write.join(", ")}` : "it was granted no write fields";
    return fail("PATCH_FORBIDDEN", `patch[${i}].path ${op.path} is not granted to this plugin; ${granted}`, withKeys(where, { granted: grant.write }));
  }
  return path;
}

const INDEX = /^(0|[1-9][0-9]*)$/;

function isContainer(value: unknown): value is Json {
  return typeof value === "object" && value !== null;
}

/** Applies one op in place on the working copy; returns what went wrong, or null. */
function applyOp(doc: Record<string, unknown>, path: readonly string[], op: PatchOp): string | null {
  if (path.length === 0) return "the payload root cannot be patched";
  let parent: unknown = doc;
  for (const segment of path.slice(0, -1)) {
    parent = child(parent, segment);
    if (parent === undefined) return "the path does not exist";
  }
  if (!isContainer(parent)) return "the path does not exist";
  const key = path[path.length - 1]!;
  let value: unknown;
  try {
    // A copy, so the result never shares structure with the caller's ops.
    value = op.op === "remove" ? undefined : structuredClone(op.value);
  } catch {
    return "the value is not plain data";
  }

  if (Array.isArray(parent)) {
    if (op.op === "add" && key === "-") { parent.push(value); return null; }
    if (!INDEX.test(key)) return `"${key}" is not an array index`;
    const index = Number(key);
    if (op.op === "add") {
      if (index > parent.length) return `index ${index} is past the end (length ${parent.length})`;
      parent.splice(index, 0, value);
    } else if (index >= parent.length) {
      return `index ${index} does not exist (length ${parent.length})`;
    } else if (op.op === "replace") parent[index] = value;
    else parent.splice(index, 1);
    return null;
  }
  const record = parent as Record<string, unknown>;
  if (op.op !== "add" && !Object.hasOwn(record, key)) return `"${key}" does not exist`;
  if (op.op === "remove") delete record[key];
  else record[key] = value;
  return null;
}

function child(parent: unknown, segment: string): unknown {
  if (Array.isArray(parent)) return INDEX.test(segment) ? parent[Number(segment)] : undefined;
  if (isContainer(parent) && Object.hasOwn(parent, segment)) return (parent as Record<string, unknown>)[segment];
  return undefined;
}

function at(doc: unknown, pointer: string): unknown {
  let value = doc;
  for (const segment of parsePointer(pointer) ?? []) value = child(value, segment);
  return value;
}

/** What the patch broke, or null. Both sides have passed the schema when this runs. */
function checkInvariant(invariant: Invariant, before: unknown, after: unknown): string | null {
  if (invariant.kind === "answer-or-action") {
    // Judged on the result; an answer that was already neither (the model's own) is reported at the boundary, not blamed on the patch.
    const valid = (doc: unknown): boolean => { const calls = at(doc, "/tool_calls"); const content = at(doc, "/content"); return typeof content === "string" || Array.isArray(content) || (Array.isArray(calls) && calls.length > 0); };
    return valid(after) || !valid(before) ? null : "answer-or-action: an answer without tool_calls must keep text content (/content cannot become null)";
  }
  const was = at(before, invariant.path);
  const now = at(after, invariant.path);
  if (!Array.isArray(was) || !Array.isArray(now)) return null;
  switch (invariant.kind) {
    case "length-kept":
      return was.length === now.length ? null : `${invariant.path} must keep its count (${was.length} before, ${now.length} after)`;
    case "items-kept": {
      if (now.length < was.length) return `${invariant.path} items cannot be removed (${was.length} before, ${now.length} after); append new ones instead`;
      for (const [i, old] of was.entries()) {
        const next = now[i] as Record<string, unknown>;
        const keys = new Set([...Object.keys(old as object), ...Object.keys(next)]);
        for (const key of keys) {
          if (invariant.mutable.includes(key)) continue;
          if (canonicalJson((old as Record<string, unknown>)[key]) !== canonicalJson(next[key])) {
            return `${invariant.path}/${i}/${key} cannot change (only ${invariant.mutable.join(", ")} may); items cannot be reordered`;
          }
        }
      }
      return null;
    }
  }
}
