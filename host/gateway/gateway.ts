/**
 * Gateway mode: an OpenAI-compatible model API whose extension points are the host's
 * hooks. Any OpenAI client pointed at it gets the release's bindings (guardrails,
 * redaction, caching, metering) on every call, streamed or not.
 */
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from "fastify";
import { SluiceError } from "../errors/sluice-error.js";
import { authenticate } from "./auth.js";
import { chatCompletions } from "./chat-route.js";
import { embeddings } from "./embeddings-route.js";
import { responses } from "./responses-route.js";
import { asSluiceError, replyError, toOpenAIError } from "./openai-error.js";
import { installJsonBody } from "../http/json-body.js";
import { authFailures } from "../http/auth-failures.js";
import { logServerErrors } from "../http/server-errors-log.js";
import { releaseConnections, serverOptions } from "../http/server-limits.js";
import { installProbes } from "../http/probes.js";
import { logAbortedRequests } from "../http/access-log.js";
import { resolveGatewayOptions, type GatewayConfig, type GatewayOptions } from "./options.js";
import { Upstream } from "./upstream.js";

function routes(config: GatewayConfig): FastifyPluginAsync {
  return async (app) => {
    const upstream = new Upstream(config.upstream, config.limits.maxConnections);
    app.addHook("onClose", () => upstream.close());
    installJsonBody(app);
    logServerErrors(app);
    releaseConnections(app);
    logAbortedRequests(app);
    // Before the body is read: an unauthenticated client cannot make the gateway parse megabytes.
    const failures = await authFailures(app, config.authFailures);
    app.addHook("onRequest", async (request, reply) => authenticate(config.keys, request, reply, failures));
    app.setErrorHandler((err, _request, reply) => replyError(reply, asSluiceError(err)));
    app.post("/v1/chat/completions", chatCompletions(config.host, upstream));
    app.post("/v1/responses", responses(config.host, upstream));
    app.post("/v1/embeddings", embeddings(config.host, upstream));
  };
}

/**
 * The gateway's routes as a plugin, to mount on a server you already run. It answers
 * errors in OpenAI's format inside its own scope and checks gateway keys on every route.
 *
 * @example
 * await app.register(gatewayRoutes({ host, keys, upstream: { baseUrl: "https://api.openai.com/v1", apiKey } }));
 */
export function gatewayRoutes(options: GatewayOptions): FastifyPluginAsync {
  return routes(resolveGatewayOptions(options));
}

/**
 * A Fastify server answering `POST /v1/chat/completions` and `POST /v1/responses` (JSON and
 * `stream: true`) and `POST /v1/embeddings` for clients holding a gateway key, forwarding to `upstream`.
 * It is not listening yet; close it before closing the host.
 *
 * @example
 * const host = createHost();
 * const keys = new GatewayKeys("sluice.db");
 * const app = createGateway({ host, keys, upstream: { baseUrl: "https://api.openai.com/v1", apiKey: process.env.OPENAI_API_KEY } });
 * await app.listen({ port: 8787, host: "127.0.0.1" });
 * // new OpenAI({ baseURL: "http://127.0.0.1:8787/v1", apiKey: "sk-sluice-…" })
 */
export function createGateway(options: GatewayOptions): FastifyInstance {
  const config = resolveGatewayOptions(options);
  const app = Fastify({ logger: config.logger, bodyLimit: config.bodyLimit, ...serverOptions(config.limits, (e) => toOpenAIError(e).body) }) as unknown as FastifyInstance;
  app.register(routes(config));
  // Outside the routes' scope: no gateway key needed.
  installProbes(app, config);
  app.setNotFoundHandler((request, reply) => {
    const { status, body } = toOpenAIError(new SluiceError("ROUTE_NOT_FOUND", `no route ${request.method} ${request.url}; the gateway serves POST /v1/chat/completions, POST /v1/responses and POST /v1/embeddings`));
    return reply.code(status).send(body);
  });
  return app;
}
