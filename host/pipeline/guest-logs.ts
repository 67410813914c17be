/**
 * What a guest wrote with the `log` host function in one step (abi/README.md §3), as plain
 * data: the kept lines (at most 64 of at most 1024 bytes each, made printable by the
 * worker, abi/printable.ts) and how many more it wrote and the host dropped. Untrusted
 * guest text that may quote the payload: the records keep the lines only where they keep
 * content (docs/guest-logs.md), and the server's own log never holds them.
 */
export interface GuestLogLine {
  /** 0 debug, 1 info, 2 warn, 3 error. */
  level: number;
  message: string;
}

export interface GuestLogs {
  lines: GuestLogLine[];
  /** Lines written past the per-invocation cap, counted and not kept. */
  dropped: number;
}

export const LOG_LEVEL_NAMES = ["debug", "info", "warn", "error"] as const;

/** The name of a level the worker clamped to 0..3. */
export function levelName(level: number): (typeof LOG_LEVEL_NAMES)[number] {
  return LOG_LEVEL_NAMES[Math.max(0, Math.min(3, level | 0))]!;
}

/** What a step reports: nothing when the guest logged nothing, so a quiet hook costs no allocation. */
export function guestLogs(lines: GuestLogLine[], dropped: number): GuestLogs | undefined {
  return lines.length > 0 || dropped > 0 ? { lines, dropped } : undefined;
}

/** Two invocations of one step (a 1.0 guest shown several views), in order. */
export function joinLogs(a: GuestLogs | undefined, b: GuestLogs | undefined): GuestLogs | undefined {
  if (!a) return b;
  if (!b) return a;
  return { lines: [...a.lines, ...b.lines], dropped: a.dropped + b.dropped };
}

/** How many lines of each level, and the dropped ones: what a record keeps when it keeps no content. */
export interface GuestLogCounts {
  count: number;
  dropped: number;
  levels: Record<(typeof LOG_LEVEL_NAMES)[number], number>;
}

export function logCounts(logs: GuestLogs): GuestLogCounts {
  const levels = { debug: 0, info: 0, warn: 0, error: 0 };
  for (const line of logs.lines) levels[levelName(line.level)]++;
  return { count: logs.lines.length, dropped: logs.dropped, levels };
}
