import { ERROR_CODES, type ErrorCode } from "./codes.js";

/** What an error looks like on the wire and across threads: plain data, rebuilt on the other side. */
export interface ErrorData {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/** The one error class the host throws. Match on `code`. */
export class SluiceError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SluiceError";
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  toData(): ErrorData {
    return { code: this.code, message: this.message, details: this.details };
  }

  static fromData(data: ErrorData): SluiceError {
    return new SluiceError(data.code, data.message, data.details ?? {});
  }
}

/**
 * True when `value` is a {@link SluiceError}, with `code` when one is given.
 * @example if (isSluiceError(err, "GUEST_TIMEOUT")) retryLater();
 */
export function isSluiceError(value: unknown, code?: ErrorCode): value is SluiceError {
  return value instanceof SluiceError && (code === undefined || value.code === code);
}
