/**
 * Time and connection limits of the API and gateway servers, so slow or idle clients
 * cannot hold the process's sockets: Node's defaults let a request send its body one byte
 * at a time for ever. Resolved once at the entry; the server is built with them.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { FastifyInstance } from "fastify";
import { SluiceError } from "../errors/sluice-error.js";

export interface ServerLimits {
  /** The whole request, headers and body, must arrive within it (408 after). Default 60 000. */
  requestTimeoutMs: number;
  /** The headers must arrive within it. Default 10 000. */
  headersTimeoutMs: number;
  /** An idle kept-alive connection is closed after it. Default 5 000. */
  keepAliveTimeoutMs: number;
  /** A socket with no traffic at all is closed after it. Default 30 000. */
  idleTimeoutMs: number;
  /** Open connections beyond it are refused at once. Default 256. */
  maxConnections: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = { requestTimeoutMs: 60_000, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 5_000, idleTimeoutMs: 30_000, maxConnections: 256 };

export function resolveServerLimits(given: Partial<ServerLimits> = {}): ServerLimits {
  const limits = { ...DEFAULT_SERVER_LIMITS, ...given };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1) throw new SluiceError("CONFIG_INVALID", `server limit ${name} must be a positive integer, got ${value}`, { [name]: value });
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) throw new SluiceError("CONFIG_INVALID", `headersTimeoutMs (${limits.headersTimeoutMs}) cannot exceed requestTimeoutMs (${limits.requestTimeoutMs})`);
  return limits;
}

const REQUEST_ID = Symbol("sluice.requestId");

/**
 * Fastify's `serverFactory` and timeout options for these limits. Node checks the
 * request and header timeouts every `connectionsCheckingInterval` (30 s by default):
 * once a second here, so a limit is kept to within a second.
 */
export function serverOptions(limits: ServerLimits) {
  return {
    // Every request gets a random id before Fastify sees it: logged as reqId, answered in x-request-id.
    genReqId: (req: IncomingMessage): string => (req as IncomingMessage & { [REQUEST_ID]?: string })[REQUEST_ID] ?? randomUUID(),
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    serverFactory: (handler: (req: IncomingMessage, res: ServerResponse) => void): Server => {
      const server = createServer({
        connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        keepAliveTimeout: limits.keepAliveTimeoutMs,
      }, (req, res) => {
        const id = randomUUID();
        (req as IncomingMessage & { [REQUEST_ID]?: string })[REQUEST_ID] = id;
        res.setHeader("x-request-id", id);
        handler(req, res);
      });
      server.maxConnections = limits.maxConnections;
      return server;
    },
  };
}

/**
 * A request refused before its body was read (wrong token, wrong origin, too large) is
 * answered and its connection closed: otherwise a client that sends the body one byte at a
 * time keeps the socket after the answer, until the request timeout.
 */
export function closeRefusedConnections(app: FastifyInstance): void {
  app.addHook("onSend", async (request, reply) => {
    if (reply.statusCode >= 400 && !request.raw.complete) void reply.header("connection", "close");
  });
  app.addHook("onResponse", async (request) => {
    if (!request.raw.complete) request.raw.socket?.destroy();
  });
}
