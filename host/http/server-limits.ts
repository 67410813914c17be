/**
 * Time and connection limits of the API and gateway servers, so slow or idle clients
 * cannot hold the process's sockets: Node's defaults let a request send its body one byte
 * at a time for ever. Resolved once at the entry; the server is built with them.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { ListenOptions, Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import { SluiceError } from "../errors/sluice-error.js";
import { AccessLog } from "./access-log.js";
import { BUSY_RETRY_AFTER_SECONDS } from "./retry-after.js";
import { isProbeRequest } from "./probes.js";

export interface ServerLimits {
  /** The whole request, headers and body, must arrive within it (408 after). Default 60 000. */
  requestTimeoutMs: number;
  /** The headers must arrive within it. Default 10 000. */
  headersTimeoutMs: number;
  /** An idle kept-alive connection is closed after it. Default 5 000. */
  keepAliveTimeoutMs: number;
  /** A socket with no traffic at all is closed after it. Default 30 000. */
  idleTimeoutMs: number;
  /**
   * Open connections beyond it are answered 503 with retry-after, unread, and closed.
   * Default {@link defaultMaxConnections}: what the file-descriptor limit holds.
   */
  maxConnections: number;
}

/** The default cap where the descriptor limit cannot be read (not Linux). */
const UNKNOWN_LIMIT_CAP = 10_000;

/**
 * The process's limit on open files, or undefined where it cannot be read. Node raises its
 * soft limit to the hard one at start, so /proc/self/limits reads the raised value.
 */
export function descriptorLimit(limitsFile = "/proc/self/limits"): number | undefined {
  try {
    const line = readFileSync(limitsFile, "utf8").split("\n").find((l) => l.startsWith("Max open files"));
    const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
    if (soft === "unlimited") return Number.MAX_SAFE_INTEGER;
    const n = Number(soft);
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The connections each server (the API and the gateway) can hold within `descriptors`: a
 * reserve for everything else the process opens (databases, workers, logs), then a quarter
 * of the rest each for the gateway's connections, the upstream connection each may hold,
 * the API's connections, and the connections over the cap while they are answered 503.
 * Past the limit, accepting fails and libuv resets the connections waiting: the cap must be
 * reached first (a connection over it gets its 503 and retry-after).
 */
export function connectionsWithin(descriptors: number): number {
  const reserve = Math.min(512, Math.max(128, Math.floor(descriptors / 4)));
  return Math.max(1, Math.min(1_000_000, Math.floor((descriptors - reserve) / 4)));
}

/** A server's default connection cap: what the descriptor limit holds ({@link connectionsWithin}), 10 000 where it cannot be read. */
export function defaultMaxConnections(limitsFile = "/proc/self/limits"): number {
  const descriptors = descriptorLimit(limitsFile);
  return descriptors === undefined ? UNKNOWN_LIMIT_CAP : connectionsWithin(descriptors);
}

export const DEFAULT_SERVER_LIMITS: Omit<ServerLimits, "maxConnections"> = { requestTimeoutMs: 60_000, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 5_000, idleTimeoutMs: 30_000 };

export function resolveServerLimits(given: Partial<ServerLimits> = {}): ServerLimits {
  // The descriptor limit is read when a server is built, not when the package is imported.
  const limits = { ...DEFAULT_SERVER_LIMITS, maxConnections: given.maxConnections ?? defaultMaxConnections(), ...given };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1) throw new SluiceError("CONFIG_INVALID", `server limit ${name} must be a positive integer, got ${value}`, { [name]: value });
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) throw new SluiceError("CONFIG_INVALID", `headersTimeoutMs (${limits.headersTimeoutMs}) cannot exceed requestTimeoutMs (${limits.requestTimeoutMs})`);
  return limits;
}

const REQUEST_ID = Symbol("sluice.requestId");
const OVER_CAP = Symbol("sluice.overCap");

/** The body of a 503 to a request over the cap, in the format its client reads (the gateway's depends on the route asked). */
export type BusyBody = (error: SluiceError, req: IncomingMessage) => unknown;

/** The management API's error body; the gateway passes its own, in each protocol's format. */
function apiBusyBody(error: SluiceError): unknown {
  return { error: error.toData() };
}

/**
 * Answers a request that arrived on a connection over the cap without handing it to the
 * routes: 503, retry-after, and the connection closed after the answer. Node's own
 * `server.maxConnections` destroys such sockets unanswered, which a client sees as a reset
 * and an OpenAI client does not retry.
 */
function refuseOverCap(req: IncomingMessage, res: ServerResponse, maxConnections: number, busyBody: BusyBody): void {
  const error = new SluiceError("CONNECTIONS_FULL", `the server holds its cap of ${maxConnections} connections; retry in ${BUSY_RETRY_AFTER_SECONDS} s`, { maxConnections, retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS });
  const body = JSON.stringify(busyBody(error, req));
  // Answered once the body is read and dropped: closing a socket with unread bytes sends a
  // reset, which can reach the client before the answer. The request timeout bounds the wait.
  req.once("end", () => {
    res.writeHead(503, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body), "retry-after": String(BUSY_RETRY_AFTER_SECONDS), connection: "close" });
    res.end(body);
  });
  req.resume();
}

/**
 * Fastify's `serverFactory` and timeout options for these limits. Node checks the
 * request and header timeouts every `connectionsCheckingInterval` (30 s by default):
 * once a second here, so a limit is kept to within a second.
 */
export function serverOptions(limits: ServerLimits, busyBody: BusyBody = apiBusyBody) {
  return {
    // One log line per request, once answered (access-log.ts).
    logController: new AccessLog(),
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
        if ((req.socket as Socket & { [OVER_CAP]?: true })[OVER_CAP]) {
          if (!isProbeRequest(req.method, req.url)) return refuseOverCap(req, res, limits.maxConnections, busyBody);
          // Answered (it costs next to nothing), and its connection let go after it.
          res.setHeader("connection", "close");
        }
        const id = randomUUID();
        (req as IncomingMessage & { [REQUEST_ID]?: string })[REQUEST_ID] = id;
        res.setHeader("x-request-id", id);
        handler(req, res);
      });
      // Counted here rather than with server.maxConnections, so the connection over the cap is answered.
      let open = 0;
      server.on("connection", (socket: Socket & { [OVER_CAP]?: true }) => {
        open += 1;
        socket.once("close", () => { open -= 1; });
        if (open > limits.maxConnections) socket[OVER_CAP] = true;
      });
      // The accept queue is as long as the connection cap (the kernel clamps it to
      // net.core.somaxconn, 4096 on current Linux). Node asks for 511 when `listen` is given no
      // backlog: a burst of more new connections than that while the event loop is busy
      // overflowed the queue, the kernel dropped their SYNs, and clients resent them only a
      // second later. Fastify hands `listen` its options object, so a caller's own backlog stands.
      const listen = server.listen.bind(server) as (...args: unknown[]) => Server;
      server.listen = ((options: unknown, ...rest: unknown[]) => listen(
        typeof options === "object" && options !== null && (options as ListenOptions).backlog === undefined ? { ...options, backlog: Math.min(limits.maxConnections, 65_535) } : options,
        ...rest,
      )) as Server["listen"];
      return server;
    },
  };
}

/**
 * Connections the server lets go once answered. A request refused before its body was read
 * (wrong token, wrong origin, too large): otherwise a client that sends the body one byte at
 * a time keeps the socket after the answer, until the request timeout. And every connection
 * once the server is closing (SIGTERM): its answers say `connection: close`, so a client
 * takes its next request to a new connection (another host, or this one restarted), and a
 * connection whose answer began before the close (a stream) is closed once idle; Node keeps
 * it until the keep-alive timeout, and the shutdown waited for it.
 */
export function releaseConnections(app: FastifyInstance): void {
  let closing = false;
  app.addHook("preClose", (done) => { closing = true; done(); });
  app.addHook("onSend", async (request, reply) => {
    if (closing || (reply.statusCode >= 400 && !request.raw.complete)) void reply.header("connection", "close");
  });
  app.addHook("onResponse", async (request) => {
    if (!request.raw.complete) request.raw.socket?.destroy();
    else if (closing) app.server.closeIdleConnections();
  });
}
