/**
 * `sluice call <point>`: shows the deployed hooks acting on the live release. One tool,
 * chat or embedding call runs through the server's real pipeline (POST /api/v1/call) with
 * a test executor that echoes what it receives; printed: the decision, what the hooks
 * changed (as JSON Pointer paths), each hook's outcome and timing. Recorded by the server
 * as a test call (actor sluice-call:test).
 */
import { POINT_NAMES, type PointName } from "../../pipeline/points.js";
import { closest } from "../../registry/validation-message.js";
import { EXIT } from "../exit-codes.js";
import { CliError, emit } from "../output.js";
import { clientOf, remoteOptions } from "./remote.js";
import type { DefineCommand } from "./types.js";
import { logLines } from "../shown-logs.js";
import type { AnswerOf } from "../client.js";

type Called = AnswerOf<"/api/v1/call", "post">;
type CalledError = NonNullable<Called["error"]>;

/** `HOOK_FAILED (GUEST_FUEL_EXHAUSTED)`: the wrapping code with the cause beside it. */
function codes(e: CalledError): string {
  return e.cause ? `${e.code} (${e.cause.code})` : e.code;
}



/** The names `sluice call` takes, each with the kind of call it runs: the callable hook points and their families. */
const CALLABLE: Readonly<Record<string, "tool" | "chat" | "embedding">> = {
  "tool": "tool", "tool.before": "tool", "tool.after": "tool",
  "chat": "chat", "model.chat": "chat", "model.chat.before": "chat", "model.chat.after": "chat", "model.chat.chunk": "chat",
  "embedding": "embedding", "embed": "embedding", "model.embedding": "embedding", "model.embedding.before": "embedding", "model.embedding.after": "embedding",
  "embedding.before": "embedding", "embedding.after": "embedding",
};

/**
 * The kind of boundary call a point name (or its family) means. Anything else is refused
 * with the closest name: a typo must never run another point's hooks.
 */
export function kindOf(point: string): "tool" | "chat" | "embedding" {
  const kind = CALLABLE[point];
  if (kind) return kind;
  const guess = closest(point, Object.keys(CALLABLE));
  const lifecycle = POINT_NAMES.includes(point as PointName);
  throw new CliError(
    lifecycle ? `point ${JSON.stringify(point)} cannot be called on its own: sluice call runs tool, chat and embedding calls` : `unknown point ${JSON.stringify(point)}${guess ? `; did you mean ${guess}?` : ""}`,
    "call tool.before (with --tool and --args), model.chat (with --message) or embedding (with --text)",
  );
}

function parseArgs(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CliError(`--args is not JSON: ${(err as Error).message}`, `quote it for the shell, e.g. --args '{"limit": 5000}'`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new CliError("--args must be a JSON object", `e.g. --args '{"limit": 5000}'`);
  return value as Record<string, unknown>;
}

export async function calledLines(c: Called): Promise<string[]> {
  const { jsonDiff } = await import("../../objects/json-diff.js");
  const show = (v: unknown) => JSON.stringify(v);
  const changes = c.executed_with !== undefined ? jsonDiff(c.input, c.executed_with) : [];
  const decision = c.ok ? `allowed: the test executor was called${changes.length ? " with the patched input" : " with the input unchanged"}`
    : `${c.called ? "failed" : "refused"}: ${codes(c.error!)}: ${c.error!.message}`;
  return [
    `decision: ${decision}`,
    ...(changes.length ? ["patch:", ...changes.map((d) => `  ${d.path || "/"}: ${"expected" in d ? show(d.expected) : "(absent)"} → ${"actual" in d ? show(d.actual) : "(removed)"}`)] : ["patch: none"]),
    ...(c.hooks.length ? c.hooks.flatMap((h) => [
      `hook ${h.binding} (${h.hook_ref}) at ${h.point}: ${h.outcome}${h.error ? ` (${codes(h.error)})` : ""} in ${h.duration_ms.toFixed(2)} ms${h.fuel !== undefined ? `, fuel ${h.fuel.toLocaleString("en-US")}` : ""}`,
      ...(h.logs ? logLines(h.logs) : []),
    ]) : ["no hook ran (no binding of the active release matches this call)"]),
    `total ${c.duration_ms.toFixed(2)} ms; operation ${c.operation_id} on revision ${c.revision} (recorded as a test call)`,
  ];
}

export const callCommand: DefineCommand = (cmd) => {
  remoteOptions(cmd)
    .option("--tool <id>", "tool id (bindings match on it)", "orders.search")
    .option("--args <json>", "tool arguments, a JSON object")
    .option("--message <text>", "the user message of a chat call")
    .option("--text <text...>", "texts of an embedding call")
    .option("--model <id>", "model id of a chat or embedding call (bindings match on it)")
    .option("--space <id>", "space id (bindings match on it)")
    .option("--json", "print the server's JSON")
    .action(async (point: string, opts: { tool: string; args?: string; message?: string; text?: string[]; model?: string; space?: string; json?: boolean; url: string; token?: string; tokenFile?: string }) => {
      const kind = kindOf(point);
      const body = {
        kind,
        ...(kind === "tool" ? { tool_id: opts.tool, arguments: parseArgs(opts.args) } : {}),
        ...(kind === "chat" ? { message: opts.message ?? "hello" } : {}),
        ...(kind === "embedding" ? { texts: opts.text ?? ["hello"] } : {}),
        ...(opts.model ? { model: opts.model } : {}),
        ...(opts.space ? { space_id: opts.space } : {}),
      };
      const client = clientOf(opts);
      const called = await client.call<Called>(client.api.POST("/api/v1/call", { body }));
      const lines = await calledLines(called);
      emit(opts, called, () => lines);
      if (!called.ok) process.exitCode = EXIT.failed;
    });
};
