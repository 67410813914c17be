/**
 * The servers' log: pino JSON lines (through Fastify's `logger` option, so the API, the
 * gateway and `sluice serve`'s own lines share one format), one request id per request
 * (server-limits.ts), and nothing a request carries but its method, path and address:
 * no headers (tokens, keys), no query strings, no bodies (payload content). Errors keep
 * their code and message; what the API answers already hides host paths.
 */
import type { IncomingMessage } from "node:http";
import type { Writable } from "node:stream";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

interface RequestLike { method?: string; url?: string; ip?: string; socket?: { remoteAddress?: string } }

/**
 * pino options for Fastify's `logger` (and for `pino()` itself).
 * @example const app = Fastify({ logger: logOptions("info") });
 */
export function logOptions(level: LogLevel, stream: Writable = process.stderr) {
  return {
    level,
    stream,
    base: { service: "sluice" },
    serializers: {
      req: (req: RequestLike | IncomingMessage) => ({
        method: req.method,
        url: (req.url ?? "").split("?")[0],
        remoteAddress: (req as RequestLike).ip ?? req.socket?.remoteAddress,
      }),
      res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
      // Code, message and stack: never an error's details, which can carry what a call held.
      err: (err: { name?: string; code?: unknown; message?: string; stack?: string }) => ({ type: err.name, ...(typeof err.code === "string" ? { code: err.code } : {}), message: err.message, stack: err.stack }),
    },
    // Belt and braces: these never reach a log line through the serializers above, nor
    // through anything sluice logs itself.
    redact: { paths: ["req.headers", "headers.authorization", "authorization", "token", "apiKey", "api_key", "*.token", "*.apiKey"], censor: "[redacted]" },
  };
}
