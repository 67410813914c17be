import { host_abort } from "./imports";
import { clipUtf8, toUtf8 } from "./utf8";

/**
 * Replaces AssemblyScript's default `env.abort` (which the host refuses) through the
 * compiler flag `--use abort=...`: the message goes to the host as UTF-8 through
 * `sluice_v1.abort`, and the invocation ends with GUEST_ABORTED.
 */
export function sluiceAbort(message: string | null = null, fileName: string | null = null, line: u32 = 0, column: u32 = 0): void {
  let text = message != null ? message : "abort";
  if (fileName != null) text += " (" + fileName + ":" + line.toString() + ":" + column.toString() + ")";
  const bytes = toUtf8(clipUtf8(text, 1024));
  host_abort(bytes.dataStart, bytes.length);
  unreachable();
}

/** Ends the invocation with GUEST_ABORTED and `message`. */
export function fatal(message: string): void {
  sluiceAbort(message);
}
