/**
 * The management API (Fastify): plugins, bindings, releases and the extension view over
 * a {@link Registry}, behind a bearer token, with body limits and catalogue error codes.
 * In front of every route, in order: the Host, Origin and content-type guards, the token
 * (with failures rate-limited per address), then the body (JSON only, nesting-limited),
 * all within request, header and idle timeouts and a connection cap.
 */
import fastifySwagger from "@fastify/swagger";
import Fastify, { type FastifyInstance } from "fastify";
import { SluiceError } from "../errors/sluice-error.js";
import { MANIFEST_MAX_BYTES } from "../registry/manifest.js";
import { SDK_INTERFACE_VERSION } from "../registry/extensions.js";
import type { Registry } from "../registry/registry.js";
import { DEFAULT_AUTH_FAILURE_LIMIT, installBearerAuth, isLoopback, type AuthFailureLimit } from "./auth.js";
import { installJsonBody } from "../http/json-body.js";
import { installRequestGuards } from "./request-guards.js";
import { logServerErrors } from "../http/server-errors-log.js";
import { releaseConnections, resolveServerLimits, serverOptions, type ServerLimits } from "../http/server-limits.js";
import { logAbortedRequests } from "../http/access-log.js";
import { checkToken, resolveToken, writeTokenFile } from "./token.js";
import { installProbes } from "../http/probes.js";
import { installErrorHandlers } from "./errors.js";
import { addShapes } from "./shapes/components.js";
import { bindingRoutes } from "./routes/bindings.js";
import { pipelineRoutes } from "./routes/pipeline.js";
import { deployRoutes } from "./routes/deploy.js";
import { callRoutes } from "./routes/call.js";
import { pluginRoutes } from "./routes/plugins.js";
import { releaseRoutes } from "./routes/releases.js";
import { recordRoutes } from "./routes/records.js";
import { quarantineRoutes } from "./routes/quarantine.js";
import { replayRoutes } from "./routes/replay.js";
import { statusRoutes } from "./routes/status.js";
import { consoleRoutes } from "./routes/console.js";
import { fleetRoutes } from "./routes/fleet.js";
import { metricsSummaryRoutes } from "./routes/metrics-summary.js";
import { metricsHandler } from "../telemetry/metrics.js";
import { gatewayKeyRoutes } from "./routes/keys.js";
import { trendRoutes } from "./routes/trends.js";
import type { GatewayKeys } from "../keys/keys.js";
import { agentDoor } from "../agents/door.js";
import { memoryEventLog } from "../agents/event-log.js";
import { memoryPairing } from "../agents/pairing.js";
import type { AgentDoorStore } from "../records/agent-door-store.js";
import { agentStatusRoutes } from "./routes/agents.js";
import path from "node:path";
import { ApiTokens } from "../keys/api-tokens.js";
import type { ApiTokenStore } from "../keys/api-token-store.js";
import { openSqliteApiTokenStore } from "../keys/sqlite-api-token-store.js";
import type { ControlAuditStore } from "../records/control-audit-store.js";
import { openSqliteControlAudit } from "../records/sqlite-control-audit.js";
import { requireRoles, VIEWER } from "./roles.js";
import { ControlLog } from "./control-log.js";
import { tokenRoutes } from "./routes/tokens.js";
import { controlAuditRoutes } from "./routes/control-audit.js";
import { hookFiguresRoutes } from "./routes/hook-figures.js";

/** What the management API serves: the registry, the bearer token and the server's limits. */
export interface ApiOptions {
  registry: Registry;
  /**
   * The bearer token clients must send, at least 32 characters. {@link startApiServer}
   * generates one when it is absent (and writes it to `<data>/api-token`, mode 0600).
   */
  token: string;
  /** Body limit of every route but upload. Default 1 MiB. */
  bodyLimit?: number;
  /**
   * Fastify's logger option (pino). Default: errors only, to stderr, so every 5xx answer
   * is logged with its cause. `false` turns it off.
   */
  logger?: boolean | Record<string, unknown>;
  /**
   * Gateway API keys to manage under /api/v1/gateway/keys. With them the server also opens
   * the coding agents' hook door, `POST /v1/agent-hooks/{agent}/{event}`, to keys of scope
   * `hooks` (docs/agents.md), and answers `GET /api/v1/agents/status`.
   */
  gatewayKeys?: GatewayKeys;
  /** Where the door pairs tool calls and records the events it answered (the records' database). Default: in memory, bounded. */
  agentDoor?: Pick<AgentDoorStore, "events" | "pairing">;
  /** The address the server listens on (the Host check allows it). Default 127.0.0.1. */
  host?: string;
  /** More names clients may send in Host (a reverse proxy's, the machine's DNS name). */
  allowedHosts?: readonly string[];
  /** Request, header, keep-alive and idle timeouts and the connection cap. */
  limits?: Partial<ServerLimits>;
  /** Failed authentications allowed per client address and token, and window. */
  authFailures?: Partial<AuthFailureLimit>;
  /** Named API tokens. Default: the registry's database (its PostgreSQL, or `<data>/sluice.db`). */
  apiTokens?: ApiTokenStore;
  /** The audit of control actions. Default: the registry's database. */
  controlAudit?: ControlAuditStore;
}

/** {@link ApiOptions} plus where to listen; used by {@link startApiServer}. */
export interface ServeOptions extends Omit<ApiOptions, "token"> {
  /** Without one a token is generated, written to `<data>/api-token` (0600) and returned. */
  token?: string;
  /** Default 0: any free port. */
  port?: number;
}

/** The upload body holds the module base64-encoded (4/3 of its size) next to the manifest. */
function uploadLimit(maxModuleBytes: number): number {
  return Math.ceil(maxModuleBytes / 3) * 4 + MANIFEST_MAX_BYTES * 2 + 4096;
}

export const DEFAULT_API_LOGGER = { level: "error", stream: process.stderr } as const;

/**
 * Builds the API without listening (tests can `inject`).
 * @example const app = await createApiServer({ registry, token }); const res = await app.inject({ url: "/api/v1/plugins", headers: { authorization: `Bearer ${token}` } });
 */
export async function createApiServer(options: ApiOptions): Promise<FastifyInstance> {
  const { registry } = options;
  checkToken(options.token, "the token option");
  const limits = resolveServerLimits(options.limits);
  const app = Fastify({
    logger: options.logger ?? DEFAULT_API_LOGGER,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    ...serverOptions(limits),
    // Refuse unknown fields instead of silently dropping them; never coerce types.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: true } },
  }) as unknown as FastifyInstance;
  installErrorHandlers(app, { hidePaths: [registry.dataDir, process.cwd()] });
  logServerErrors(app);
  releaseConnections(app);
  logAbortedRequests(app);
  installJsonBody(app);
  installRequestGuards(app, { listenHost: options.host ?? "127.0.0.1", ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}) });
  // Tokens and the audit live beside the registry's rows: one database to back up, one for a fleet.
  const sqliteFile = path.join(registry.dataDir, "sluice.db");
  const tokenStore = options.apiTokens ?? registry.shared?.apiTokens ?? openSqliteApiTokenStore(sqliteFile);
  const auditStore = options.controlAudit ?? registry.shared?.controlAudit ?? openSqliteControlAudit(sqliteFile);
  app.addHook("onClose", async () => {
    if (!options.apiTokens) await tokenStore.close();
    if (!options.controlAudit) await auditStore.close();
  });
  const tokens = new ApiTokens(tokenStore);
  const control = new ControlLog(auditStore);
  requireRoles(app);
  await installBearerAuth(app, options.token, tokens, { ...DEFAULT_AUTH_FAILURE_LIMIT, ...options.authFailures });
  addShapes(app);
  await app.register(fastifySwagger, {
    // Each named shape is one entry of components.schemas, under its own name.
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === "string" ? json.$id : `def-${i}`) },
    openapi: {
      openapi: "3.1.0",
      info: { title: "Sluice management API", version: SDK_INTERFACE_VERSION, description: "Upload WebAssembly hook plugins, bind them to points, publish releases, activate and roll back. Errors are `{ error: { code, message, details } }`; codes are listed in abi/errors.md." },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
      security: [{ bearer: [] }],
    },
  });
  app.get("/api/v1/openapi.json", { config: VIEWER, schema: { hide: true } }, async () => app.swagger());
  // The registry's database answering is what this server needs to serve.
  installProbes(app, { ready: () => registry.activeRevision() });
  statusRoutes(app, registry);
  pluginRoutes(app, registry, control, uploadLimit(registry.maxModuleBytes));
  bindingRoutes(app, registry, control);
  releaseRoutes(app, registry, control);
  deployRoutes(app, registry, control, uploadLimit(registry.maxModuleBytes));
  callRoutes(app, registry.host);
  pipelineRoutes(app, registry, control);
  recordRoutes(app, registry.host);
  hookFiguresRoutes(app, registry.host);
  trendRoutes(app, registry.host, options.gatewayKeys);
  replayRoutes(app, registry, uploadLimit(registry.maxModuleBytes));
  quarantineRoutes(app, registry.host, control);
  tokenRoutes(app, tokens, control);
  controlAuditRoutes(app, control.store);
  // Behind the same bearer token as every route (Prometheus sends it with `authorization`).
  app.get("/metrics", { config: VIEWER, schema: { hide: true } }, metricsHandler(registry.host.observer.registry));
  metricsSummaryRoutes(app, registry.host.observer.registry);
  fleetRoutes(app, registry, () => listeningUrl(app, options.host ?? "127.0.0.1"));
  consoleRoutes(app);
  if (options.gatewayKeys) {
    await app.register(gatewayKeyRoutes, { prefix: "/api/v1", keys: options.gatewayKeys, control });
    const store = options.agentDoor ?? { events: memoryEventLog(), pairing: memoryPairing() };
    await app.register(agentDoor({ host: registry.host, keys: options.gatewayKeys, store, ...(options.authFailures ? { authFailures: options.authFailures } : {}) }));
    agentStatusRoutes(app, store.events);
  }
  return app;
}

/** `http://host:port` of the listening server. */
function listeningUrl(app: FastifyInstance, host: string, fallbackPort?: number): string {
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : fallbackPort;
  return `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`;
}

/**
 * Starts the API on `host:port`, always behind a token: the given one, the data folder's
 * `<data>/api-token` when it exists, or one generated and written there (0600) for local
 * clients once the server listens. Refuses (CONFIG_INVALID) to
 * generate one for an address beyond loopback: remote clients could not read the file.
 * @example const { url, close } = await startApiServer({ registry, token: process.env.SLUICE_TOKEN, port: 8787 });
 */
export async function startApiServer(options: ServeOptions): Promise<{ app: FastifyInstance; url: string; token: string; tokenFile?: string; tokenGenerated?: boolean; close: () => Promise<void> }> {
  const host = options.host ?? "127.0.0.1";
  if (options.token === undefined && !isLoopback(host)) {
    throw new SluiceError("CONFIG_INVALID", `refusing to serve ${host} without a token: give one with SLUICE_TOKEN or --token-file (a generated one is written only to the local data folder, out of reach of remote clients), or serve 127.0.0.1`, { host });
  }
  const { token, file, generated } = resolveToken({ token: options.token }, options.registry.dataDir);
  const app = await createApiServer({ ...options, host, token });
  try {
    await app.listen({ host, port: options.port ?? 0 });
  } catch (err) {
    await app.close();
    throw err;
  }
  // Only now, listening: a server that could not start (a port in use) leaves the file as it was.
  if (generated) writeTokenFile(options.registry.dataDir, token);
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  const url = `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`;
  return { app, url, token, ...(file ? { tokenFile: file, tokenGenerated: generated === true } : {}), close: () => app.close() };
}
