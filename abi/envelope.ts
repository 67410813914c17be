/**
 * The request and reply envelopes of ABI v1 (abi/README.md §4), as TypeScript types,
 * and the one function that turns an untrusted decoded reply into a typed outcome.
 */
export interface HookContext {
  space_id: string | null;
  actor_id: string | null;
  run_id: string | null;
  instance_id: string | null;
  operation_id: string | null;
  parent_operation_id: string | null;
  call_id: string | null;
  point: string;
  purpose: string | null;
  binding_id: string | null;
  published_revision: number | null;
  deadline: number | null;
}

/**
 * What the host sends a guest for one hook call (abi/README.md §5): the ABI version, the point, the context, the granted payload view and the binding's config.
 */
export interface RequestEnvelope {
  abi: string;
  point: string;
  context: HookContext;
  payload: Record<string, unknown>;
  config: unknown;
  carry?: unknown;
}

/** One JSON Patch operation (RFC 6902), restricted to add / replace / remove. */
export type PatchOp =
  | { op: "add" | "replace"; path: string; value: unknown }
  | { op: "remove"; path: string };

/** Key-value facts a hook attaches to its outcome; the host records them with the hook's trace. */
export type Annotations = Record<string, unknown>;

/** What a hook decided. A returned value, never a side effect. */
export type Outcome =
  | { kind: "continue"; carry?: unknown; hold?: string; annotations?: Annotations }
  | { kind: "patch_input"; patch: PatchOp[]; carry?: unknown; annotations?: Annotations }
  | { kind: "patch_output"; patch: PatchOp[]; annotations?: Annotations }
  | { kind: "reject"; code: string; reason: string; annotations?: Annotations }
  | { kind: "short_circuit"; result: unknown; annotations?: Annotations }
  | { kind: "redact"; content: string; hold?: string; annotations?: Annotations }
  | { kind: "block"; code: string; reason: string; annotations?: Annotations }
  /** ABI 1.2: the operation needs someone's approval first; `code` is optional. */
  | { kind: "ask"; reason: string; code?: string; annotations?: Annotations };

/** The kind of a hook's outcome (`continue`, `patch_input`, `reject`, ...). */
export type OutcomeKind = Outcome["kind"];
/** Every outcome kind, in the order abi/README.md lists them. */
export const OUTCOME_KINDS: readonly OutcomeKind[] = [
  "continue", "patch_input", "patch_output", "reject", "short_circuit", "redact", "block", "ask",
];
/** The ABI minor that added each outcome after 1.0: a reply that says an older minor cannot send it. */
export const OUTCOME_SINCE_MINOR: Readonly<Partial<Record<OutcomeKind, number>>> = { ask: 2 };

/** Size limits of a guest's reply fields: outcome code length and the bytes of reason, carry and annotations. */
export const REPLY_LIMITS = { codeMax: 64, reasonBytes: 1024, carryBytes: 4096, annotationsBytes: 4096, patchOps: 4096 } as const;
/**
 * The most operations one patch may hold (abi/README.md §4.2): ample for a patch per
 * message of a long conversation, and a bound on the host's work per reply (a 1 MiB reply
 * fits about 25,000 small operations). More is PATCH_INVALID.
 */
export const PATCH_MAX_OPS = REPLY_LIMITS.patchOps;
const CODE_PATTERN = /^[a-z0-9_.-]{1,64}$/;

/** A guest reply read as an outcome, or the reason it is not a valid one. */
export type ParseResult =
  | { ok: true; outcome: Outcome }
  /** `code`: set when the fault has its own code (a patch past {@link PATCH_MAX_OPS} is PATCH_INVALID); otherwise the caller's. */
  | { ok: false; message: string; code?: "PATCH_INVALID"; details?: Record<string, unknown> };

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

/** Rejects anything a JSON-like value cannot hold (Dates, Maps, typed arrays from extensions). */
function isPlain(v: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (v === null || typeof v === "string" || typeof v === "boolean") return true;
  if (typeof v === "number") return Number.isFinite(v);
  if (typeof v === "bigint" || v instanceof Uint8Array) return true;
  if (Array.isArray(v)) return v.every((x) => isPlain(x, depth + 1));
  if (isMap(v)) return Object.values(v).every((x) => isPlain(x, depth + 1));
  return false;
}

function parsePatch(v: unknown): PatchOp[] | string {
  if (!Array.isArray(v)) return "patch must be an array";
  const ops: PatchOp[] = [];
  for (const [i, raw] of v.entries()) {
    if (!isMap(raw)) return `patch[${i}] must be a map`;
    const { op, path } = raw;
    if (typeof path !== "string" || (path !== "" && !path.startsWith("/"))) return `patch[${i}].path must be a JSON Pointer`;
    if (op === "remove") ops.push({ op, path });
    else if (op === "add" || op === "replace") {
      if (!("value" in raw)) return `patch[${i}] needs a value`;
      ops.push({ op, path, value: raw.value });
    } else return `patch[${i}].op must be add, replace or remove`;
  }
  return ops;
}

function utf8Length(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/**
 * Turns a decoded reply into an Outcome, or says exactly what is wrong with it.
 * The reply comes from an untrusted guest: every key is checked for presence and type.
 */
export function parseReply(reply: unknown, sizeOf: (v: unknown) => number, abiMajor?: number, abiMinor?: number): ParseResult {
  const fail = (message: string): ParseResult => ({ ok: false, message });
  if (!isMap(reply)) return fail("reply must be a map");
  // Counted first, before any walk over the operations.
  const patch = reply.patch;
  if (Array.isArray(patch) && patch.length > PATCH_MAX_OPS) {
    return { ok: false, code: "PATCH_INVALID", message: `the patch has ${patch.length} operations; a patch holds at most ${PATCH_MAX_OPS} operations`, details: { limit: PATCH_MAX_OPS, size: patch.length } };
  }
  if (!isPlain(reply)) return fail("reply holds a value that is not plain data (extension type, or nesting deeper than 64)");
  if (typeof reply.abi !== "string" || !/^(0|[1-9]\d{0,3})\.(0|[1-9]\d{0,3})$/.test(reply.abi)) return fail("reply.abi must be a \"major.minor\" string");
  // A module speaks one major: a reply in another is a guest that does not know the contract it runs under.
  if (abiMajor !== undefined && Number(reply.abi.slice(0, reply.abi.indexOf("."))) !== abiMajor) {
    return fail(`reply.abi is "${reply.abi}" but the module declares ABI ${abiMajor}.x; a reply speaks its module's major version`);
  }
  // A guest speaks the minor its marker declares or an older one, never a newer one: a 1.0
  // guest that says "1.1" does not know what 1.1 asks of it.
  if (abiMinor !== undefined && Number(reply.abi.slice(reply.abi.indexOf(".") + 1)) > abiMinor) {
    return fail(`reply.abi is "${reply.abi}" but the module's marker declares ABI ${abiMajor ?? "?"}.${abiMinor}; a reply may not claim a newer minor than its marker`);
  }
  const kind = reply.outcome;
  if (typeof kind !== "string" || !(OUTCOME_KINDS as readonly string[]).includes(kind)) {
    return fail(`reply.outcome must be one of ${OUTCOME_KINDS.join(", ")}`);
  }
  // An outcome is part of the minor that added it: a guest built for an older minor (its
  // marker, so its reply's abi) cannot send it.
  const since = OUTCOME_SINCE_MINOR[kind as OutcomeKind];
  const replyMinor = Number(reply.abi.slice(reply.abi.indexOf(".") + 1));
  if (since !== undefined && replyMinor < since) {
    return fail(`reply.outcome "${kind}" is ABI 1.${since}; a reply that says "${reply.abi}" cannot send it (the module's marker must be sluice_abi_v1_${since} or newer, and the reply's abi "1.${since}")`);
  }
  let annotations: Annotations | undefined;
  if (reply.annotations !== undefined && reply.annotations !== null) {
    if (!isMap(reply.annotations)) return fail("reply.annotations must be a map");
    if (sizeOf(reply.annotations) > REPLY_LIMITS.annotationsBytes) return fail("reply.annotations is larger than 4 KiB");
    annotations = reply.annotations;
  }
  const withAnn = <T extends object>(o: T): T => (annotations ? { ...o, annotations } : o);
  const carry = (): { carry?: unknown } | string => {
    if (reply.carry === undefined || reply.carry === null) return {};
    if (sizeOf(reply.carry) > REPLY_LIMITS.carryBytes) return "reply.carry is larger than 4 KiB";
    return { carry: reply.carry };
  };
  const hold = (): { hold?: string } | string => {
    if (reply.hold === undefined || reply.hold === null) return {};
    return typeof reply.hold === "string" ? { hold: reply.hold } : "reply.hold must be a string";
  };
  const codeReason = (): { code: string; reason: string } | string => {
    if (typeof reply.code !== "string" || !CODE_PATTERN.test(reply.code)) return "reply.code must match [a-z0-9_.-]{1,64}";
    if (typeof reply.reason !== "string") return "reply.reason must be a string";
    if (utf8Length(reply.reason) > REPLY_LIMITS.reasonBytes) return "reply.reason is longer than 1024 bytes";
    return { code: reply.code, reason: reply.reason };
  };

  switch (kind as OutcomeKind) {
    case "continue": {
      const c = carry(); if (typeof c === "string") return fail(c);
      const h = hold(); if (typeof h === "string") return fail(h);
      return { ok: true, outcome: withAnn({ kind: "continue", ...c, ...h }) };
    }
    case "patch_input":
    case "patch_output": {
      const patch = parsePatch(reply.patch);
      if (typeof patch === "string") return fail(patch);
      if (kind === "patch_output") return { ok: true, outcome: withAnn({ kind, patch }) };
      const c = carry(); if (typeof c === "string") return fail(c);
      return { ok: true, outcome: withAnn({ kind: "patch_input", patch, ...c }) };
    }
    case "reject":
    case "block": {
      const cr = codeReason(); if (typeof cr === "string") return fail(cr);
      return { ok: true, outcome: withAnn({ kind: kind as "reject" | "block", ...cr }) };
    }
    case "ask": {
      if (typeof reply.reason !== "string") return fail("reply.reason must be a string for ask");
      if (utf8Length(reply.reason) > REPLY_LIMITS.reasonBytes) return fail("reply.reason is longer than 1024 bytes");
      if (reply.code === undefined || reply.code === null) return { ok: true, outcome: withAnn({ kind: "ask", reason: reply.reason }) };
      if (typeof reply.code !== "string" || !CODE_PATTERN.test(reply.code)) return fail("reply.code must match [a-z0-9_.-]{1,64}");
      return { ok: true, outcome: withAnn({ kind: "ask", reason: reply.reason, code: reply.code }) };
    }
    case "short_circuit":
      if (!("result" in reply)) return fail("reply.result is required for short_circuit");
      return { ok: true, outcome: withAnn({ kind: "short_circuit", result: reply.result }) };
    case "redact": {
      if (typeof reply.content !== "string") return fail("reply.content must be a string for redact");
      const h = hold(); if (typeof h === "string") return fail(h);
      return { ok: true, outcome: withAnn({ kind: "redact", content: reply.content, ...h }) };
    }
  }
}
