/** A guest's kept log lines as the CLI prints them (sluice test, call and operation). */
import { LOG_LIMITS } from "../sandbox/limits.js";

export interface ShownLogs { lines: { level: string; message: string }[]; dropped: number }

/** A guest's lines, indented; already printable (abi/printable.ts). */
export function logLines(logs: ShownLogs): string[] {
  return [
    ...logs.lines.map((l) => `    log ${l.level}: ${l.message}`),
    ...(logs.dropped > 0 ? [`    log: ${logs.dropped} more line${logs.dropped === 1 ? "" : "s"} dropped (${LOG_LIMITS.lines} are kept per call)`] : []),
  ];
}

