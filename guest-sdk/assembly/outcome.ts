import { Value } from "./value";

/**
 * The ABI version this SDK writes into a reply: "1.0", which every marker accepts, except
 * for an outcome a later minor added (ask: "1.2", so its hook must export
 * `@sluice/guest-sdk/exports_v1_2`).
 */
export const ABI = "1.0";
/** The version an ask reply says: the minor that added the outcome. */
export const ASK_ABI = "1.2";

/**
 * What a hook decided (abi/README.md §4), built with one static method per outcome and
 * chainable modifiers. Which outcome a point allows is checked by the host
 * (OUTCOME_NOT_ALLOWED).
 *
 * ```ts
 * return Outcome.patchInput().replace("/arguments/limit", Value.int(100)).annotate("capped", Value.bool(true));
 * ```
 */
export class Outcome {
  private patchOps: Value | null = null;
  private code: string | null = null;
  private reason: string | null = null;
  private result: Value | null = null;
  private content: string | null = null;
  private holdText: string | null = null;
  private carry: Value | null = null;
  private annotations: Value | null = null;
  private abi: string = ABI;

  private constructor(public readonly kind: string) {}

  /** Let the operation proceed unchanged. */
  static continue(): Outcome { return new Outcome("continue"); }
  /** Change the operation's input (before points); add operations with replace/add/remove. */
  static patchInput(): Outcome { const o = new Outcome("patch_input"); o.patchOps = Value.arr(); return o; }
  /** Change the operation's output (after points); add operations with replace/add/remove. */
  static patchOutput(): Outcome { const o = new Outcome("patch_output"); o.patchOps = Value.arr(); return o; }
  /** Refuse the operation. `code` matches [a-z0-9_.-]{1,64}; `reason` is at most 1024 bytes. */
  static reject(code: string, reason: string): Outcome {
    const o = new Outcome("reject"); o.code = code; o.reason = reason; return o;
  }
  /** Serve `result` instead of running the operation (before points that allow it). */
  static shortCircuit(result: Value): Outcome { const o = new Outcome("short_circuit"); o.result = result; return o; }
  /** Emit `content` instead of the chunk's or output's text. */
  static redact(content: string): Outcome { const o = new Outcome("redact"); o.content = content; return o; }
  /**
   * Ask for someone's approval before the operation runs (ABI 1.2, tool.before): the host
   * does not run it and ends it with HOOK_ASKED; a coding agent asks its user where it can.
   * `reason` (at most 1024 bytes) says what needs approving. The hook must export
   * `@sluice/guest-sdk/exports_v1_2` (hook.yaml `abi: "1.2"`): a 1.0 or 1.1 module's ask is
   * refused with OUTPUT_INVALID.
   */
  static ask(reason: string): Outcome {
    const o = new Outcome("ask"); o.reason = reason; o.abi = ASK_ABI; return o;
  }
  /** Stop the output stream. Same code and reason rules as reject. */
  static block(code: string, reason: string): Outcome {
    const o = new Outcome("block"); o.code = code; o.reason = reason; return o;
  }

  /** JSON Patch `replace` at a JSON Pointer rooted at the payload, e.g. "/arguments/limit". */
  replace(path: string, value: Value): Outcome { return this.op("replace", path, value); }
  /** JSON Patch `add`; "/-" appends to an array. */
  add(path: string, value: Value): Outcome { return this.op("add", path, value); }
  /** JSON Patch `remove`. */
  remove(path: string): Outcome { return this.op("remove", path, null); }

  /** At `model.chat.chunk`: a suffix of the chunk held back and prepended to the next chunk. */
  hold(text: string): Outcome { this.holdText = text; return this; }
  /** A small value (≤ 4 KiB encoded) handed to this plugin's paired after hook. */
  withCarry(value: Value): Outcome { this.carry = value; return this; }
  /** A value the host records with the operation (all annotations ≤ 4 KiB encoded). */
  annotate(key: string, value: Value): Outcome {
    if (this.annotations == null) this.annotations = Value.map();
    this.annotations!.set(key, value);
    return this;
  }

  /** The reply map, keys in the spec's order with `result` last. */
  toValue(): Value {
    const m = Value.map().set("abi", Value.str(this.abi)).set("outcome", Value.str(this.kind));
    if (this.patchOps != null) m.set("patch", this.patchOps!);
    if (this.code != null) m.set("code", Value.str(this.code!));
    if (this.reason != null) m.set("reason", Value.str(this.reason!));
    if (this.content != null) m.set("content", Value.str(this.content!));
    if (this.holdText != null) m.set("hold", Value.str(this.holdText!));
    if (this.carry != null) m.set("carry", this.carry!);
    if (this.annotations != null) m.set("annotations", this.annotations!);
    if (this.result != null) m.set("result", this.result!);
    return m;
  }

  private op(name: string, path: string, value: Value | null): Outcome {
    assert(this.patchOps != null, "replace/add/remove need Outcome.patchInput() or Outcome.patchOutput()");
    const op = Value.map().set("op", Value.str(name)).set("path", Value.str(path));
    if (value != null) op.set("value", value);
    this.patchOps!.push(op);
    return this;
  }
}
