/**
 * The management API (Fastify): plugins, bindings, releases and the extension view over
 * a {@link Registry}, behind a bearer token, with body limits and catalogue error codes.
 */
import fastifySwagger from "@fastify/swagger";
import Fastify, { type FastifyInstance } from "fastify";
import { SluiceError } from "../errors/sluice-error.js";
import { MANIFEST_MAX_BYTES } from "../registry/manifest.js";
import { SDK_INTERFACE_VERSION } from "../registry/extensions.js";
import type { Registry } from "../registry/registry.js";
import { installBearerAuth, isLoopback } from "./auth.js";
import { installErrorHandlers } from "./errors.js";
import { bindingRoutes } from "./routes/bindings.js";
import { pipelineRoutes } from "./routes/pipeline.js";
import { pluginRoutes } from "./routes/plugins.js";
import { releaseRoutes } from "./routes/releases.js";
import { anyObject, errorResponses } from "./schemas.js";
import { recordRoutes } from "../records/http.js";
import { quarantineRoutes } from "./routes/quarantine.js";
import { metricsHandler } from "../telemetry/metrics.js";
import { gatewayKeyRoutes } from "../gateway/key-routes.js";
import type { GatewayKeys } from "../gateway/keys.js";

export interface ApiOptions {
  registry: Registry;
  /** The bearer token clients must send. Without one, only a loopback address may be served (see {@link startApiServer}). */
  token?: string;
  /** Body limit of every route but upload. Default 1 MiB. */
  bodyLimit?: number;
  /** Log requests (pino); default off. */
  logger?: boolean;
  /** Gateway API keys to manage under /api/v1/gateway/keys (gateway mode). */
  gatewayKeys?: GatewayKeys;
}

export interface ServeOptions extends ApiOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
}

/** The upload body holds the module base64-encoded (4/3 of its size) next to the manifest. */
function uploadLimit(maxModuleBytes: number): number {
  return Math.ceil(maxModuleBytes / 3) * 4 + MANIFEST_MAX_BYTES * 2 + 4096;
}

/**
 * Builds the API without listening (tests can `inject`).
 * @example const app = await createApiServer({ registry, token }); const res = await app.inject({ url: "/api/v1/plugins", headers: { authorization: `Bearer ${token}` } });
 */
export async function createApiServer(options: ApiOptions): Promise<FastifyInstance> {
  const { registry } = options;
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    // Refuse unknown fields instead of silently dropping them; never coerce types.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: true } },
  });
  installErrorHandlers(app);
  if (options.token !== undefined) installBearerAuth(app, options.token);
  await app.register(fastifySwagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: "Sluice management API", version: SDK_INTERFACE_VERSION, description: "Upload WebAssembly hook plugins, bind them to points, publish releases, activate and roll back. Errors are `{ error: { code, message, details } }`; codes are listed in abi/errors.md." },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
      security: [{ bearer: [] }],
    },
  });
  app.get("/api/v1/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  app.get("/api/v1/status", { schema: { tags: ["status"], summary: "Active revision and counts.", response: { 200: anyObject, ...errorResponses() } } }, async () => ({
    active_revision: registry.activeRevision(),
    sdk_interface_version: SDK_INTERFACE_VERSION,
    plugins: registry.listPlugins().length,
    bindings: registry.listBindings().length,
    releases: registry.listReleases().length,
  }));
  pluginRoutes(app, registry, uploadLimit(registry.maxModuleBytes));
  bindingRoutes(app, registry);
  releaseRoutes(app, registry);
  pipelineRoutes(app, registry);
  recordRoutes(app, registry.host);
  quarantineRoutes(app, registry.host);
  // Behind the same bearer token as every route (Prometheus sends it with `authorization`).
  app.get("/metrics", { schema: { hide: true } }, metricsHandler(registry.host.observer.registry));
  if (options.gatewayKeys) await app.register(gatewayKeyRoutes, { prefix: "/api/v1", keys: options.gatewayKeys });
  return app;
}

/**
 * Starts the API on `host:port`. Refuses (CONFIG_INVALID) to listen beyond loopback
 * without a token: an unauthenticated control plane must not be reachable from the network.
 * @example const { url, close } = await startApiServer({ registry, token: process.env.SLUICE_TOKEN, port: 8787 });
 */
export async function startApiServer(options: ServeOptions): Promise<{ app: FastifyInstance; url: string; close: () => Promise<void> }> {
  const host = options.host ?? "127.0.0.1";
  if (options.token !== undefined && options.token.length === 0) throw new SluiceError("CONFIG_INVALID", "the token is empty; set a non-empty --token or SLUICE_TOKEN");
  if (options.token === undefined && !isLoopback(host)) {
    throw new SluiceError("CONFIG_INVALID", `refusing to serve ${host} without a token: set --token or SLUICE_TOKEN, or serve 127.0.0.1`, { host });
  }
  const app = await createApiServer(options);
  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  const url = `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`;
  return { app, url, close: () => app.close() };
}
