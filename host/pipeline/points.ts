/**
 * The hook point table (abi/README.md §4; the generated point reference): every point declared once, as data. Payload
 * types, validators, the outcome table and the guest SDK guide all derive from it.
 */
import type { Outcome, OutcomeKind } from "../../abi/envelope.js";
import { SluiceError } from "../errors/sluice-error.js";
import type { FromSchema } from "../../abi/schema-types.js";

export type Stage = "before" | "after" | "chunk" | "error" | "finally" | "lifecycle";
/** What an operation calls: a model, a tool or an embedder. */
export type OperationKind = "chat" | "embedding" | "tool";
/** What a point belongs to: one kind of operation, any of them, or a run or subtask's lifecycle. */
export type PointOperation = OperationKind | "any" | "run" | "subtask";

/** Checks a patch's result against the payload it started from; the schema alone cannot. */
export type Invariant =
  /** The array at `path` keeps its length (embedding texts map one to one onto vectors). */
  | { kind: "length-kept"; path: string }
  /** The array at `path` keeps its items in place (new ones may be appended); in each kept item only the `mutable` keys may change. */
  | { kind: "items-kept"; path: string; mutable: readonly string[] }
  /** The answer stays a valid answer or a valid action (abi/README.md §4.4): text content, or at least one tool_call. */
  | { kind: "answer-or-action" };

export interface PointSpec {
  readonly name: string;
  readonly stage: Stage;
  readonly operation: PointOperation;
  readonly summary: string;
  /** JSON Schema draft 2020-12 of the payload. */
  readonly schema: Readonly<Record<string, unknown>>;
  readonly outcomes: readonly OutcomeKind[];
  /** JSON Pointer prefixes a patch may touch; a path equal to a prefix is allowed. */
  readonly patchable: readonly string[];
  /** Fields a hook author may expect to change but cannot, with where to change them instead: documentation for the SDK guide. */
  readonly readOnly: readonly { path: string; why: string }[];
  readonly invariants: readonly Invariant[];
  /** The field a `redact` outcome replaces with its `content`; null when redact works on the stream (chunks) or is not allowed. */
  readonly redacts: string | null;
  /** A hook failure here becomes a diagnostic and never fails the operation (no recursion into error handling). */
  readonly diagnosticOnly: boolean;
  /** The before point this point's hooks pair with (after and chunk points): its carries reach them, and in symmetric mode they unwind from its short-circuit. */
  readonly pairsWith?: string;
  /**
   * Fields a guest receives only when its read grant names them (the field or a path under it):
   * a plugin without a read grant, or with a grant of a parent, does not see them. They say
   * where on the user's machine an agent runs, which no hook needs to judge a call.
   */
  readonly restricted?: readonly string[];
}

/** The text channels of a streamed answer (ABI 1.1); a chunk payload without `channel` is `content`. */
export const CHANNELS = ["content", "reasoning", "refusal"] as const;
export type Channel = (typeof CHANNELS)[number];

export const CHAT_PURPOSES = ["action", "compaction", "completion"] as const;
/** Purposes a binding can match on; embedding calls carry `embedding`. */
export const PURPOSES = [...CHAT_PURPOSES, "embedding"] as const;
export type Purpose = (typeof PURPOSES)[number];

const str = { type: "string" } as const;
const id = { type: "string", minLength: 1 } as const;
const count = { type: "integer", minimum: 0 } as const;
const object = { type: "object" } as const;
const anything = {} as const;
const annotations = { type: "object", maxProperties: 64 } as const;
const realStatus = { enum: ["not_started", "running", "succeeded", "failed", "unknown"] } as const;
const operation = { enum: ["chat", "tool", "embedding"] } as const;

const toolCall = {
  type: "object", additionalProperties: false, required: ["id", "type", "function"],
  properties: {
    id,
    type: { const: "function" },
    function: { type: "object", additionalProperties: false, required: ["name", "arguments"], properties: { name: id, arguments: str } },
  },
} as const;

const nullableStr = { type: ["string", "null"] } as const;

/** The coding agent whose hook event this operation comes from (absent for every other caller). */
const agent = {
  type: "object", additionalProperties: false, required: ["name", "event"],
  properties: { name: id, event: id, session_id: nullableStr, cwd: str, transcript_path: str },
} as const;
/** The agent's working directory and transcript file: sent only to a plugin whose read grant names them. */
const AGENT_RESTRICTED = ["/agent/cwd", "/agent/transcript_path"] as const;

/** The content part types a point declares; a part of any other type is shown as `{ type }` and passes through untouched. */
export const PART_TYPES = ["text", "image_url", "input_audio", "file", "refusal"] as const;
const part = <const T extends string, const P extends Record<string, unknown>, const R extends readonly string[]>(type: T, properties: P, required: R) => ({
  type: "object", additionalProperties: false, required: ["type", ...required], properties: { type: { const: type }, ...properties },
} as const);
const contentPart = {
  anyOf: [
    part("text", { text: str }, ["text"]),
    part("image_url", { image_url: { type: "object", additionalProperties: false, required: ["url"], properties: { url: str, detail: str } } }, ["image_url"]),
    part("input_audio", { input_audio: { type: "object", additionalProperties: false, required: ["data", "format"], properties: { data: str, format: str } } }, ["input_audio"]),
    part("file", { file: { type: "object", additionalProperties: false, properties: { file_data: str, file_id: str, filename: str } } }, ["file"]),
    part("refusal", { refusal: str }, ["refusal"]),
    { type: "object", additionalProperties: false, required: ["type"], properties: { type: { type: "string", not: { enum: PART_TYPES } } } },
  ],
} as const;
/** A message's or an answer's content: text, nothing, or parts (ABI 1.1). */
const content = { anyOf: [{ type: ["string", "null"] }, { type: "array", items: contentPart }] } as const;

const message = {
  type: "object", additionalProperties: false, required: ["role", "content"],
  properties: {
    role: { enum: ["system", "developer", "user", "assistant", "tool"] },
    content,
    tool_calls: { type: "array", items: toolCall },
    tool_call_id: id,
    name: str,
    refusal: nullableStr,
    reasoning_content: nullableStr,
  },
} as const;

function lifecycle<const E extends Record<string, unknown>, const R extends readonly string[]>(extra: E, required: R) {
  return {
    type: "object", additionalProperties: false, required: ["run_id", "instance_id", ...required],
    properties: { run_id: id, instance_id: id, task: str, ...extra },
  } as const;
}

const endStatus = { enum: ["succeeded", "failed", "cancelled"] } as const;

const POINT_LIST = [
  {
    name: "model.chat.before", stage: "before", operation: "chat",
    summary: "Before a chat model call: may change message text (content, refusal, reasoning_content), append messages and change the declared params; undeclared fields pass through untouched.",
    schema: {
      type: "object", additionalProperties: false, required: ["model", "messages", "purpose"],
      properties: {
        model: id,
        messages: { type: "array", items: message },
        tools: {
          type: "array",
          items: { type: "object", additionalProperties: false, required: ["name", "parameters"], properties: { name: id, description: str, parameters: object, strict: { type: ["boolean", "null"] } } },
        },
        params: {
          type: "object", additionalProperties: false,
          properties: {
            temperature: { type: "number", minimum: 0, maximum: 2 },
            max_tokens: { type: "integer", minimum: 1 },
            max_completion_tokens: { type: "integer", minimum: 1 },
            top_p: { type: "number", minimum: 0, maximum: 1 },
            stop: { anyOf: [str, { type: "array", items: str, maxItems: 16 }] },
            seed: { type: "integer" },
            frequency_penalty: { type: "number", minimum: -2, maximum: 2 },
            presence_penalty: { type: "number", minimum: -2, maximum: 2 },
            logit_bias: { type: "object", additionalProperties: { type: "number", minimum: -100, maximum: 100 } },
            tool_choice: { anyOf: [{ enum: ["none", "auto", "required"] }, object] },
            response_format: { type: "object", required: ["type"], properties: { type: str } },
            parallel_tool_calls: { type: "boolean" },
          },
        },
        purpose: { enum: CHAT_PURPOSES },
        stream: { type: "boolean" },
        agent,
      },
    },
    outcomes: ["continue", "patch_input", "reject", "short_circuit"],
    patchable: ["/messages", "/params"],
    readOnly: [
      { path: "/stream", why: "whether the caller streams is the caller's choice" },
      { path: "/agent", why: "the coding agent's event is a fact of where the prompt came from" },
      { path: "/model", why: "the model binding is fixed by the release, not by a hook" },
      { path: "/tools", why: "tool permissions and schemas are fixed by the release" },
      { path: "/purpose", why: "bindings are matched on it before any hook runs" },
    ],
    invariants: [{ kind: "items-kept", path: "/messages", mutable: ["content", "refusal", "reasoning_content"] }],
    redacts: null, diagnosticOnly: false, restricted: AGENT_RESTRICTED,
  },
  {
    name: "model.chat.after", stage: "after", operation: "chat", pairsWith: "model.chat.before",
    summary: "After a chat model call: may change only the answer text (content, refusal, reasoning_content) and annotations.",
    schema: {
      type: "object", additionalProperties: false, required: ["model", "content", "tool_calls", "finish_reason", "usage"],
      properties: {
        model: id,
        content,
        refusal: nullableStr,
        reasoning_content: nullableStr,
        tool_calls: { type: "array", items: toolCall },
        finish_reason: str,
        usage: {
          type: "object", additionalProperties: false, required: ["input_tokens", "output_tokens"],
          properties: { input_tokens: count, output_tokens: count, total_tokens: count, cached_tokens: count, reasoning_tokens: count },
        },
        provider_request_id: { type: ["string", "null"] },
        annotations,
      },
    },
    outcomes: ["continue", "patch_output", "redact", "block"],
    patchable: ["/content", "/refusal", "/reasoning_content", "/annotations"],
    readOnly: [
      { path: "/tool_calls", why: "change a tool's arguments at tool.before, where they are re-validated" },
      { path: "/usage", why: "usage is a billing fact" },
      { path: "/finish_reason", why: "the answer's status is a fact of the call" },
    ],
    invariants: [{ kind: "answer-or-action" }], redacts: "/content", diagnosticOnly: false,
  },
  {
    name: "model.chat.chunk", stage: "chunk", operation: "chat", pairsWith: "model.chat.before",
    summary: "Each streamed chunk, once per text channel (answer text, reasoning text, refusal): observe, hold back a suffix, redact or block. `delta` is the held tail of the previous chunk of the same channel plus the new text.",
    schema: {
      type: "object", additionalProperties: false, required: ["request_id", "chunk_index", "is_last", "delta", "model"],
      properties: { request_id: id, chunk_index: count, is_last: { type: "boolean" }, delta: str, model: id, channel: { enum: CHANNELS } },
    },
    outcomes: ["continue", "redact", "block"],
    patchable: [],
    readOnly: [{ path: "/delta", why: "return redact (and hold) to change what is emitted" }],
    invariants: [], redacts: null, diagnosticOnly: false,
  },
  {
    name: "model.embedding.before", stage: "before", operation: "embedding",
    summary: "Before an embedding call: may transform the texts, keeping their count and order.",
    schema: {
      type: "object", additionalProperties: false, required: ["model", "texts"],
      properties: { model: id, texts: { type: "array", items: str } },
    },
    outcomes: ["continue", "patch_input", "reject"],
    patchable: ["/texts"],
    readOnly: [{ path: "/model", why: "the model is part of the frozen index signature" }],
    invariants: [{ kind: "length-kept", path: "/texts" }],
    redacts: null, diagnosticOnly: false,
  },
  {
    name: "model.embedding.after", stage: "after", operation: "embedding", pairsWith: "model.embedding.before",
    summary: "After an embedding call: read-only; may block.",
    schema: {
      type: "object", additionalProperties: false, required: ["model", "vectors", "dimension"],
      properties: { model: id, vectors: { type: "array", items: { type: "array", items: { type: "number" } } }, dimension: { type: "integer", minimum: 1 } },
    },
    outcomes: ["continue", "block"],
    patchable: [],
    readOnly: [{ path: "/vectors", why: "count, order and dimension are fixed by the index signature" }],
    invariants: [], redacts: null, diagnosticOnly: false,
  },
  {
    name: "tool.before", stage: "before", operation: "tool",
    summary: "Before a tool call: may change only the arguments; schema, authorization and path checks run again on the result.",
    schema: {
      type: "object", additionalProperties: false, required: ["tool_id", "name", "schema", "arguments", "call_id"],
      properties: { tool_id: id, name: id, revision: count, schema: object, arguments: object, call_id: id, agent },
    },
    outcomes: ["continue", "patch_input", "reject", "short_circuit", "ask"],
    patchable: ["/arguments"],
    readOnly: [
      { path: "/schema", why: "the tool's schema is fixed by its published revision" },
      { path: "/call_id", why: "it pairs the call with the model's tool_call" },
      { path: "/agent", why: "the coding agent's event is a fact of where the call came from" },
    ],
    invariants: [], redacts: null, diagnosticOnly: false, restricted: AGENT_RESTRICTED,
  },
  {
    name: "tool.after", stage: "after", operation: "tool", pairsWith: "tool.before",
    summary: "After a tool call: may change only the model-visible view of the result.",
    schema: {
      type: "object", additionalProperties: false, required: ["tool_id", "name", "call_id", "status", "result", "duration_ms", "view"],
      properties: {
        tool_id: id, name: id, call_id: id,
        status: { enum: ["succeeded", "failed"] },
        result: anything,
        error: { type: "object", additionalProperties: false, required: ["code", "message"], properties: { code: str, message: str } },
        artifacts: { type: "array", items: object },
        duration_ms: { type: "number", minimum: 0 },
        view: anything,
        agent,
      },
    },
    outcomes: ["continue", "patch_output", "redact", "block"],
    patchable: ["/view"],
    readOnly: [
      { path: "/status", why: "the real status is a fact of the call" },
      { path: "/result", why: "the real result is kept apart from what the model sees" },
      { path: "/error", why: "a failed tool's error is a fact of the call; change what the model sees in /view" },
      { path: "/artifacts", why: "side effects already happened" },
      { path: "/agent", why: "the coding agent's event is a fact of where the call came from" },
    ],
    invariants: [], redacts: "/view", diagnosticOnly: false, restricted: AGENT_RESTRICTED,
  },
  {
    name: "operation.error", stage: "error", operation: "any",
    summary: "An operation failed: diagnostic labels (annotations) only; cannot replace the error or retry.",
    schema: {
      type: "object", additionalProperties: false, required: ["operation", "phase", "error", "real_status"],
      properties: {
        operation,
        phase: { enum: ["before", "operation", "after"] },
        error: { type: "object", additionalProperties: false, required: ["code", "message"], properties: { code: str, message: str } },
        real_status: realStatus,
        reached_binding: { type: ["string", "null"] },
      },
    },
    outcomes: ["continue"], patchable: [], readOnly: [], invariants: [], redacts: null, diagnosticOnly: true,
  },
  {
    name: "operation.finally", stage: "finally", operation: "any",
    summary: "An operation ended, however it ended: cleanup and diagnostics only.",
    schema: {
      type: "object", additionalProperties: false, required: ["operation", "real_status", "outcome"],
      properties: {
        operation, real_status: realStatus,
        outcome: { enum: ["succeeded", "failed", "rejected", "blocked", "short_circuited", "cancelled", "asked"] },
      },
    },
    outcomes: ["continue"], patchable: [], readOnly: [], invariants: [], redacts: null, diagnosticOnly: true,
  },
  {
    name: "run.start", stage: "lifecycle", operation: "run",
    summary: "A run starts: may reject it.",
    schema: lifecycle({}, []),
    outcomes: ["continue", "reject"], patchable: [], readOnly: [], invariants: [], redacts: null, diagnosticOnly: false,
  },
  {
    name: "run.end", stage: "lifecycle", operation: "run",
    summary: "A run ended: observe only.",
    schema: lifecycle({ status: endStatus }, ["status"]),
    outcomes: ["continue"], patchable: [], readOnly: [], invariants: [], redacts: null, diagnosticOnly: false,
  },
  {
    name: "subtask.start", stage: "lifecycle", operation: "subtask",
    summary: "A child agent starts (instance_id is the child's): may reject it.",
    schema: lifecycle({ parent_instance_id: id }, ["parent_instance_id"]),
    outcomes: ["continue", "reject"], patchable: [], readOnly: [], invariants: [], redacts: null, diagnosticOnly: false,
  },
  {
    name: "subtask.end", stage: "lifecycle", operation: "subtask",
    summary: "A child agent ended: observe only.",
    schema: lifecycle({ parent_instance_id: id, status: endStatus }, ["parent_instance_id", "status"]),
    outcomes: ["continue"], patchable: [], readOnly: [], invariants: [], redacts: null, diagnosticOnly: false,
  },
] as const satisfies readonly PointSpec[];

type PointEntry = (typeof POINT_LIST)[number];
/** The name of a hook point (`tool.before`, `model.response.chunk`, ...): the keys of {@link POINTS}. */
export type PointName = PointEntry["name"];
type EntryOf<P extends PointName> = Extract<PointEntry, { name: P }>;

/** The payload type of a point, derived from its schema. */
export type Payload<P extends PointName> = FromSchema<EntryOf<P>["schema"]>;
/** The outcomes a hook at point `P` may return: the table, checked by the compiler. */
export type OutcomeAt<P extends PointName> = Extract<Outcome, { kind: EntryOf<P>["outcomes"][number] }>;

/** Every point, in declaration order. */
export const POINTS: readonly PointSpec[] = POINT_LIST;
/** Every hook point's name, in table order. */
export const POINT_NAMES: readonly PointName[] = POINT_LIST.map((p) => p.name);

const byName = new Map<string, PointSpec>(POINT_LIST.map((p) => [p.name, p]));

export function isPointName(name: string): name is PointName {
  return byName.has(name);
}

/**
 * The declaration of one point.
 * @example getPoint("tool.before").patchable // ["/arguments"]
 */
export function getPoint(name: PointName): PointSpec {
  const spec = byName.get(name);
  if (!spec) throw new SluiceError("CONFIG_INVALID", `unknown hook point "${name}"; known points: ${POINT_NAMES.join(", ")}`);
  return spec;
}

/** The before point whose hooks pair with `point`'s (its carries, its short-circuit's unwinding); undefined for a point that pairs with none. */
export function pairedBefore(point: PointName): PointName | undefined {
  return getPoint(point).pairsWith as PointName | undefined;
}
