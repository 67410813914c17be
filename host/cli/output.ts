/**
 * How the CLI talks to people: progress on stderr (so stdout stays pipeable), and only
 * when stderr is a terminal; results on stdout, as text or (--json) as JSON; every failure
 * as one line with its code plus what to do about it, and a distinct exit code
 * (exit-codes.ts). No colour is used, so NO_COLOR holds trivially.
 */
import { isSluiceError } from "../errors/sluice-error.js";
import { ERROR_CODES, type ErrorCode } from "../errors/codes.js";
import { EXIT, type ExitCode } from "./exit-codes.js";

/** Progress lines and glyphs (✓ ✗ …) only for a person watching a terminal. */
export function interactive(): boolean {
  return process.stderr.isTTY === true;
}

/** Runs a long step, showing it started and how long it took (on a terminal). */
export async function step<T>(label: string, work: () => Promise<T>): Promise<T> {
  if (!interactive()) return work();
  process.stderr.write(`… ${label}\n`);
  const t0 = performance.now();
  const value = await work();
  process.stderr.write(`✓ ${label} (${Math.round(performance.now() - t0)} ms)\n`);
  return value;
}

/** `✓`/`✗` on a terminal, `pass`/`FAIL` otherwise. */
export function mark(pass: boolean): string {
  return interactive() ? (pass ? "✓" : "✗") : pass ? "pass" : "FAIL";
}

export function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * A note for the person beside a result (stderr, whatever the terminal), so that stdout
 * holds the result alone: `KEY=$(sluice keys create ...)` captures the key and nothing else.
 */
export function note(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** A warning for the person (stderr, whatever the terminal). */
export function warn(line: string): void {
  process.stderr.write(`warning: ${line}\n`);
}

/** Prints `value` as JSON with --json, otherwise the human lines. */
export function emit(opts: { json?: boolean }, value: unknown, lines: () => string[]): void {
  if (opts.json) return printJson(value);
  for (const line of lines()) print(line);
}

/** Rows under a header line, each column as wide as its widest cell. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ").trimEnd();
  return [line(headers), ...rows.map(line)];
}

/** A failure the user can fix, with the fix, and the exit code it ends with (usage by default). */
export class CliError extends Error {
  constructor(message: string, readonly hint?: string, readonly exitCode: ExitCode = EXIT.usage) {
    super(message);
  }
}

const HINTS: Partial<Record<ErrorCode, string>> = {
  UNAUTHORIZED: "set SLUICE_TOKEN or SLUICE_TOKEN_FILE to the server's token; a local `sluice serve` keeps it in <its data dir>/api-token (run the command in the folder it runs in, or set SLUICE_DATA_DIR to its data dir)",
  MANIFEST_INVALID: "fix hook.yaml; `sluice new <name>` shows a complete example",
  VERSION_CONFLICT: "versions are immutable: bump `version` in hook.yaml, then build and upload again",
  PLUGIN_NOT_FOUND: "upload it first with `sluice upload <dir>`; `sluice list plugins` shows what is stored",
  PLUGIN_CONFIG_INVALID: "fix --config so it matches the plugin's config_schema (see `sluice list plugins --json`)",
  BINDING_NOT_FOUND: "`sluice list bindings` shows the binding ids",
  BINDING_CONFLICT: "change it with `sluice binding set <id> …` (the fields given change, the others stay), or pick another --id",
  RELEASE_NOT_FOUND: "`sluice list releases` shows the revisions",
  OPERATION_NOT_FOUND: "`sluice operations` lists the recorded operations",
  ID_INVALID: "ids are lowercase letters, digits and dashes; versions are semver like 1.0.0; refs are id@version",
  MODULE_TOO_LARGE: "make the module smaller (build with --optimize size) or raise the server's upload limit",
  PAYLOAD_TOO_LARGE: "make the module smaller (build with --optimize size) or raise the server's upload limit",
  TOOLCHAIN_MISSING: "install the compiler into the project (the command is in the error), then run the command again",
  PAYLOADS_UNAVAILABLE: "start the server with --payload-store (SLUICE_PAYLOAD_STORE=1); operations recorded from then on can be replayed",
};

/** For errors in hook.yaml's bindings section (details.source "hook.yaml"): the file to fix, not a flag. */
const HOOK_YAML_HINTS: Partial<Record<ErrorCode, string>> = {
  PLUGIN_CONFIG_INVALID: "fix the binding's config in hook.yaml (bindings:) so it matches the manifest's config_schema",
  BINDING_INVALID: "fix the binding in hook.yaml (bindings:); its fields are those of `sluice bind`",
};

/** The exit code of a catalogue error: by its HTTP status. */
export function exitCodeOf(code: ErrorCode): ExitCode {
  const status = ERROR_CODES[code]?.status ?? 500;
  if (status === 404) return EXIT.notFound;
  if (status >= 400 && status < 500) return EXIT.refused;
  return EXIT.internal;
}

/** Prints `err` for a person (on stderr, unless told) and returns the exit code. */
export function reportError(err: unknown, out: { write(text: string): unknown } = process.stderr): ExitCode {
  if (err instanceof CliError) {
    out.write(`error: ${err.message}\n${err.hint ? `  → ${err.hint}\n` : ""}`);
    return err.exitCode;
  }
  if (isSluiceError(err)) {
    const hint = hintOf(err);
    out.write(`error ${err.code}: ${err.message}\n${hint ? `  → ${hint}\n` : ""}`);
    return exitCodeOf(err.code);
  }
  out.write(`error: ${(err as Error)?.message ?? String(err)}\n`);
  return EXIT.internal;
}

/**
 * With --json: the failure as JSON on stdout, `{ "error": { code, message, hint, details } }`
 * (code "CLI_ERROR" for the CLI's own checks), so a script reading stdout always gets JSON;
 * returns the same exit code as {@link reportError}.
 */
export function reportErrorJson(err: unknown, out: { write(text: string): unknown } = process.stdout): ExitCode {
  const exit = reportError(err, { write: () => undefined });
  const error = err instanceof CliError ? { code: "CLI_ERROR", message: err.message, ...(err.hint ? { hint: err.hint } : {}) }
    : isSluiceError(err) ? { code: err.code, message: err.message, ...(hintOf(err) ? { hint: hintOf(err) } : {}), details: err.details }
    : { code: "INTERNAL_ERROR", message: (err as Error)?.message ?? String(err) };
  out.write(`${JSON.stringify({ error }, null, 2)}\n`);
  return exit;
}

function hintOf(err: { code: ErrorCode; details: Record<string, unknown> }): string | undefined {
  return err.details.source === "hook.yaml" ? HOOK_YAML_HINTS[err.code] ?? HINTS[err.code] : HINTS[err.code];
}
