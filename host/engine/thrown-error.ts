import { isSluiceError, SluiceError } from "../errors/sluice-error.js";

/**
 * What went wrong, as a catalogue error: a SluiceError keeps its code. A throw while the
 * call reads its input (a getter that throws, a proxy, a value the host cannot walk) is
 * PAYLOAD_INVALID; any other is a host bug, INTERNAL_ERROR, with the cause kept in
 * `details` for the service's own logs (never its text in the message, which may hold payload).
 */
export function thrownError(err: unknown, reading: boolean): SluiceError {
  if (isSluiceError(err)) return err;
  const name = err instanceof Error ? err.name : typeof err;
  return reading
    ? new SluiceError("PAYLOAD_INVALID", `the call's input could not be read (${name}): pass plain data`, { field: "input", cause: err })
    : new SluiceError("INTERNAL_ERROR", `the boundary failed unexpectedly (${name})`, { cause: err });
}
