/**
 * Gateway mode: the model APIs coding agents and SDKs speak (OpenAI's chat completions and
 * Responses, Anthropic's Messages, Gemini's generateContent), whose extension points are the
 * host's hooks. Any client pointed at it gets the release's bindings (guardrails, redaction,
 * caching, metering) on every call, streamed or not. Each protocol's routes are served when
 * its upstream is configured, and answer errors in that protocol's own format.
 */
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from "fastify";
import type { IncomingHttpHeaders } from "node:http";
import { SluiceError } from "../errors/sluice-error.js";
import { authenticate, presentedKey } from "./auth.js";
import { chatCompletions } from "./chat-route.js";
import { embeddings } from "./embeddings-route.js";
import { responses } from "./responses-route.js";
import { replyError, toOpenAIError } from "./openai-error.js";
import { asSluiceError } from "./gateway-error.js";
import { installJsonBody } from "../http/json-body.js";
import { authFailures } from "../http/auth-failures.js";
import { logServerErrors } from "../http/server-errors-log.js";
import { releaseConnections, serverOptions } from "../http/server-limits.js";
import { installProbes } from "../http/probes.js";
import { logAbortedRequests } from "../http/access-log.js";
import { resolveGatewayOptions, type GatewayConfig, type GatewayOptions } from "./options.js";
import { Upstream } from "./upstream.js";
import type { UpstreamProtocol } from "./upstream-url.js";
import { anthropicCountTokens, anthropicMessages, anthropicModels } from "./anthropic-route.js";
import { replyAnthropicError, toAnthropicError } from "./anthropic-error.js";
import { geminiGenerate, geminiModels } from "./gemini-route.js";
import { replyGeminiError, toGeminiError } from "./gemini-error.js";

/** The routes each protocol serves, for the not-found answer and the start-up log. */
export const PROTOCOL_ROUTES: Readonly<Record<UpstreamProtocol, readonly string[]>> = {
  openai: ["POST /v1/chat/completions", "POST /v1/responses", "POST /v1/embeddings"],
  anthropic: ["POST /v1/messages", "POST /v1/messages/count_tokens", "GET /v1/models"],
  gemini: ["POST /v1beta/models/{model}:generateContent", "POST /v1beta/models/{model}:streamGenerateContent", "POST /v1beta/models/{model}:countTokens", "GET /v1beta/models"],
};

function served(config: GatewayConfig): string[] {
  return (Object.keys(config.upstreams) as UpstreamProtocol[]).flatMap((p) => PROTOCOL_ROUTES[p]);
}

function routes(config: GatewayConfig): FastifyPluginAsync {
  return async (app) => {
    const pools = new Map<UpstreamProtocol, Upstream>();
    for (const [protocol, upstream] of Object.entries(config.upstreams) as [UpstreamProtocol, NonNullable<GatewayConfig["upstreams"][UpstreamProtocol]>][]) {
      pools.set(protocol, new Upstream(upstream, config.limits.maxConnections, protocol));
    }
    app.addHook("onClose", async () => { await Promise.all([...pools.values()].map((u) => u.close())); });
    installJsonBody(app);
    logServerErrors(app);
    releaseConnections(app);
    logAbortedRequests(app);
    // Before the body is read: an unauthenticated client cannot make the gateway parse megabytes.
    const failures = await authFailures(app, config.authFailures, presentedKey);
    app.addHook("onRequest", async (request, reply) => authenticate(config.keys, request, reply, failures));
    app.setErrorHandler((err, _request, reply) => replyError(reply, asSluiceError(err)));
    const openai = pools.get("openai");
    if (openai) {
      app.post("/v1/chat/completions", chatCompletions(config.host, openai));
      app.post("/v1/responses", responses(config.host, openai));
      app.post("/v1/embeddings", embeddings(config.host, openai));
    }
    const anthropic = pools.get("anthropic");
    // Each protocol in its own scope: its errors (a wrong key included) in its own format.
    if (anthropic) {
      await app.register(async (scope) => {
        scope.setErrorHandler((err, _request, reply) => replyAnthropicError(reply, asSluiceError(err)));
        scope.post("/v1/messages", anthropicMessages(config.host, anthropic));
        scope.post("/v1/messages/count_tokens", anthropicCountTokens(anthropic));
        scope.get("/v1/models", anthropicModels(anthropic));
        scope.get("/v1/models/:id", anthropicModels(anthropic));
      });
    }
    const gemini = pools.get("gemini");
    if (gemini) {
      await app.register(async (scope) => {
        scope.setErrorHandler((err, _request, reply) => replyGeminiError(reply, asSluiceError(err)));
        scope.post("/v1beta/models/:call", geminiGenerate(config.host, gemini));
        scope.get("/v1beta/models", geminiModels(gemini));
        scope.get("/v1beta/models/:model", geminiModels(gemini));
      });
    }
  };
}

/**
 * The error format of the protocol whose client sent a request, for answers given before
 * any route ran (an unserved route, a connection over the cap): Gemini's paths are /v1beta
 * (or another version's `/models/{model}:method`) and its clients send x-goog-api-key, and
 * every Anthropic client sends anthropic-version.
 */
function formatOf(request: { url?: string; headers: IncomingHttpHeaders }): (error: SluiceError) => { status: number; body: unknown } {
  const url = request.url ?? "";
  if (url.startsWith("/v1beta/") || /^\/[^/]+\/models\/[^/?]+:/.test(url) || request.headers["x-goog-api-key"] !== undefined) return toGeminiError;
  if (url.startsWith("/v1/messages") || request.headers["anthropic-version"] !== undefined) return toAnthropicError;
  return toOpenAIError;
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
 * A Fastify server answering, for clients holding a gateway key, `POST /v1/chat/completions`,
 * `POST /v1/responses` (JSON and `stream: true`) and `POST /v1/embeddings` forwarded to
 * `upstream`, `POST /v1/messages` to `anthropicUpstream` and Gemini's `generateContent` to `geminiUpstream`.
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
  const app = Fastify({ logger: config.logger, bodyLimit: config.bodyLimit, ...serverOptions(config.limits, (e, req) => formatOf(req)(e).body) }) as unknown as FastifyInstance;
  app.register(routes(config));
  // Outside the routes' scope: no gateway key needed.
  installProbes(app, config);
  // Anthropic clients (Claude Code) probe the base URL before their first call.
  app.head("/", { config: { probe: true } }, async (_request, reply) => reply.code(200).send());
  app.setNotFoundHandler((request, reply) => {
    const error = new SluiceError("ROUTE_NOT_FOUND", `no route ${request.method} ${request.url.split("?", 1)[0]}; this gateway serves ${served(config).join(", ")}`);
    const { status, body } = formatOf(request)(error);
    return reply.code(status).send(body);
  });
  return app;
}
