/**
 * How the CLI talks to people: progress on stderr (so stdout stays pipeable), results on
 * stdout, and every failure as one line with its code plus what to do about it.
 */
import { isSluiceError } from "../errors/sluice-error.js";
import type { ErrorCode } from "../errors/codes.js";

/** Runs a long step, showing it started and how long it took. */
export async function step<T>(label: string, work: () => Promise<T>): Promise<T> {
  process.stderr.write(`… ${label}\n`);
  const t0 = performance.now();
  const value = await work();
  process.stderr.write(`✓ ${label} (${Math.round(performance.now() - t0)} ms)\n`);
  return value;
}

export function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A failure the user can fix, with the fix. */
export class CliError extends Error {
  constructor(message: string, readonly hint?: string) {
    super(message);
  }
}

const HINTS: Partial<Record<ErrorCode, string>> = {
  UNAUTHORIZED: "pass --token <token> or set SLUICE_TOKEN to the server's token",
  MANIFEST_INVALID: "fix hook.yaml; `sluice new <name>` shows a complete example",
  VERSION_CONFLICT: "versions are immutable: bump `version` in hook.yaml, then build and upload again",
  PLUGIN_NOT_FOUND: "upload it first with `sluice upload <dir>`; `sluice list plugins` shows what is stored",
  PLUGIN_CONFIG_INVALID: "fix --config so it matches the plugin's config_schema (see `sluice list plugins --json`)",
  BINDING_NOT_FOUND: "`sluice list bindings` shows the binding ids",
  RELEASE_NOT_FOUND: "`sluice list releases` shows the revisions",
  ID_INVALID: "ids are lowercase letters, digits and dashes; versions are semver like 1.0.0; refs are id@version",
  MODULE_TOO_LARGE: "make the module smaller (build with --optimize size) or raise the server's upload limit",
  PAYLOAD_TOO_LARGE: "make the module smaller (build with --optimize size) or raise the server's upload limit",
};

/** Prints `err` for a person and returns the exit code. */
export function reportError(err: unknown): number {
  if (err instanceof CliError) {
    process.stderr.write(`error: ${err.message}\n${err.hint ? `  → ${err.hint}\n` : ""}`);
    return 1;
  }
  if (isSluiceError(err)) {
    const hint = HINTS[err.code];
    process.stderr.write(`error ${err.code}: ${err.message}\n${hint ? `  → ${hint}\n` : ""}`);
    return 1;
  }
  process.stderr.write(`error: ${(err as Error)?.message ?? String(err)}\n`);
  return 1;
}
