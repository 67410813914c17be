/**
 * Liveness and readiness for orchestrators and load balancers, on both servers of `sluice
 * serve`: `GET /healthz` answers 200 while the process's event loop does; `GET /readyz`
 * answers 200 when the server should get traffic, 503 (with retry-after) when its store does
 * not answer. A closing server (SIGTERM) accepts no new connection, which a probe sees as a
 * failure. Neither needs a token or a gateway key, nor a known Host name (a kubelet sends
 * the pod's address): they say nothing beyond the status.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { BUSY_RETRY_AFTER_SECONDS } from "./retry-after.js";

/** How long the readiness check may take before the probe answers 503: a probe's own timeout is often 1 s. */
export const READY_CHECK_TIMEOUT_MS = 900;

export const HEALTH_PATH = "/healthz";
export const READY_PATH = "/readyz";

export interface ProbeOptions {
  /** A cheap read of the store the server depends on; a rejection or a wait past READY_CHECK_TIMEOUT_MS is "store_unavailable". */
  ready?: () => Promise<unknown>;
}

/**
 * A probe's request line, before Fastify routes it: a connection over the cap still gets
 * its probe answered (server-limits.ts). Liveness refused for being busy would have an
 * orchestrator restart a server because it is loaded, and send its load elsewhere at once.
 */
export function isProbeRequest(method: string | undefined, url: string | undefined): boolean {
  if (method !== "GET" && method !== "HEAD") return false;
  const path = url?.split("?", 1)[0];
  return path === HEALTH_PATH || path === READY_PATH;
}

/** Routes marked so skip the token, key and Host checks, and log at debug when they answer 200. */
export function isProbe(request: FastifyRequest): boolean {
  return request.routeOptions.config?.probe === true;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** A liveness or readiness probe (http/probes.ts). */
    probe?: boolean;
  }
}

export function installProbes(app: FastifyInstance, options: ProbeOptions = {}): void {
  const route = { schema: { hide: true }, config: { probe: true } } as const;
  app.get(HEALTH_PATH, route, async (_request, reply) => reply.header("cache-control", "no-store").send({ status: "ok" }));
  app.get(READY_PATH, route, async (_request, reply) => {
    void reply.header("cache-control", "no-store");
    if (await storeAnswers(options.ready)) return reply.send({ status: "ready" });
    return reply.code(503).header("retry-after", String(BUSY_RETRY_AFTER_SECONDS)).send({ status: "not_ready", reason: "store_unavailable" });
  });
}

async function storeAnswers(ready: ProbeOptions["ready"]): Promise<boolean> {
  if (!ready) return true;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => { timer = setTimeout(resolve, READY_CHECK_TIMEOUT_MS, "late"); });
  // Settled either way, so a check that fails after the probe gave up is not an unhandled rejection.
  // The error itself is not shown: it can name a database host or a file path.
  const check = Promise.resolve().then(ready).then(() => "ok" as const, () => "failed" as const);
  try {
    return (await Promise.race([check, late])) === "ok";
  } finally {
    clearTimeout(timer);
  }
}
