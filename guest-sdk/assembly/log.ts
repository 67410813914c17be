import { host_log } from "./imports";
import { toUtf8 } from "./utf8";

function write(level: i32, message: string): void {
  const bytes = toUtf8(message);
  host_log(level, bytes.dataStart, bytes.length);
}

/**
 * Messages the host keeps with the invocation (at most 64 of at most 1024 bytes; the
 * rest are counted and dropped).
 */
export namespace log {
  export function debug(message: string): void { write(0, message); }
  export function info(message: string): void { write(1, message); }
  export function warn(message: string): void { write(2, message); }
  export function error(message: string): void { write(3, message); }
}
