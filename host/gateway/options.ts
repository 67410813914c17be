import { SluiceError } from "../errors/sluice-error.js";
import type { Host } from "../host.js";
import type { GatewayKeys } from "../keys/keys.js";
import { resolveServerLimits, type ServerLimits } from "../http/server-limits.js";
import { DEFAULT_AUTH_FAILURE_LIMIT, type AuthFailureLimit } from "../http/auth-failures.js";
import { withChanges, withKeys } from "../objects/with-keys.js";
import { upstreamBase, type UpstreamProtocol } from "./upstream-url.js";

/** One upstream: where it is, its key, and how long and how much the gateway waits for and reads of it. */
export interface UpstreamOptions {
  /** The upstream's base URL, with or without its version segment (`https://api.openai.com` or `https://api.openai.com/v1`). */
  baseUrl: string;
  /** Sent to the upstream as its protocol's credential (`Authorization: Bearer`, `x-api-key`, `x-goog-api-key`); clients never see it, nor do hooks. */
  apiKey?: string;
  /** How long the upstream may stay silent: the whole answer without streaming, the gap between events with. Default 60 000. */
  timeoutMs?: number;
  /** Largest upstream answer (without streaming) or stream event read, in bytes; past it UPSTREAM_TOO_LARGE. Default 16 MiB. */
  maxBytes?: number;
}

/**
 * What {@link createGateway} needs: the host that runs the hooks, the key store, at least one
 * upstream and the server's limits. Each protocol's routes are served only when its upstream is given.
 */
export interface GatewayOptions {
  host: Host;
  /** An OpenAI-compatible upstream: /v1/chat/completions, /v1/responses, /v1/embeddings. */
  upstream?: UpstreamOptions;
  /** An Anthropic Messages upstream: /v1/messages, /v1/messages/count_tokens. */
  anthropicUpstream?: UpstreamOptions;
  /** A Gemini API upstream: /v1beta/models/{model}:generateContent and :streamGenerateContent. */
  geminiUpstream?: UpstreamOptions;
  keys: GatewayKeys;
  /** Largest request body accepted, in bytes. Default 8 MiB. */
  bodyLimit?: number;
  /** Fastify's logger option (pino). Default: errors only, to stderr (every 5xx is logged with its cause). */
  logger?: boolean | Record<string, unknown>;
  /** Request, header, keep-alive and idle timeouts and the connection cap (createGateway only). */
  limits?: Partial<ServerLimits>;
  /** Failed key checks allowed per client address and window. Default 20 a minute. */
  authFailures?: Partial<AuthFailureLimit>;
  /**
   * What `GET /readyz` checks (createGateway only): a cheap read of the store the host
   * depends on. Rejecting, or slower than 0.9 s, makes the probe answer 503. Default: ready
   * until the server closes.
   */
  ready?: () => Promise<unknown>;
}

export interface UpstreamConfig { baseUrl: string; apiKey: string | null; timeoutMs: number; maxBytes: number }
export interface GatewayConfig { host: Host; keys: GatewayKeys; upstreams: Partial<Record<UpstreamProtocol, UpstreamConfig>>; bodyLimit: number; logger: boolean | Record<string, unknown>; limits: ServerLimits; authFailures: AuthFailureLimit; ready?: () => Promise<unknown> }

/** Resolves the options once, at the entry; nothing downstream re-checks them. */
const OPTION_OF: Readonly<Record<UpstreamProtocol, "upstream" | "anthropicUpstream" | "geminiUpstream">> = { openai: "upstream", anthropic: "anthropicUpstream", gemini: "geminiUpstream" };

function resolveUpstream(u: UpstreamOptions, protocol: UpstreamProtocol): UpstreamConfig {
  const name = OPTION_OF[protocol];
  const baseUrl = upstreamBase(u.baseUrl, protocol, `${name}.baseUrl`);
  const timeoutMs = u.timeoutMs ?? 60_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new SluiceError("CONFIG_INVALID", `${name}.timeoutMs must be a positive integer (milliseconds), not ${timeoutMs}`);
  const maxBytes = u.maxBytes ?? 16 * 1024 * 1024;
  if (!Number.isInteger(maxBytes) || maxBytes < 1024) throw new SluiceError("CONFIG_INVALID", `${name}.maxBytes must be an integer of at least 1024 bytes, not ${maxBytes}`);
  return { baseUrl, apiKey: u.apiKey ?? null, timeoutMs, maxBytes };
}

/**
 * A request as its log lines show it: method, path and address, never its query string
 * (a Gemini client may send its key as `?key=`) nor its headers. A caller's own `req`
 * serializer stands.
 */
const SAFE_REQUEST = {
  req: (req: { method?: string; url?: string; ip?: string; socket?: { remoteAddress?: string } }) => ({ method: req.method, url: (req.url ?? "").split("?")[0], remoteAddress: req.ip ?? req.socket?.remoteAddress }),
};

function withSafeRequests(logger: boolean | Record<string, unknown>): boolean | Record<string, unknown> {
  if (logger === false) return false;
  const options = logger === true ? { level: "info" } : logger;
  return withKeys(options, { serializers: withKeys(SAFE_REQUEST, (options.serializers ?? {}) as Record<string, unknown>) });
}

export function resolveGatewayOptions(o: GatewayOptions): GatewayConfig {
  const upstreams: Partial<Record<UpstreamProtocol, UpstreamConfig>> = {};
  for (const protocol of ["openai", "anthropic", "gemini"] as const) {
    const given = o[OPTION_OF[protocol]];
    if (given) upstreams[protocol] = resolveUpstream(given, protocol);
  }
  if (Object.keys(upstreams).length === 0) throw new SluiceError("CONFIG_INVALID", "the gateway needs at least one upstream: upstream (OpenAI-compatible), anthropicUpstream or geminiUpstream");
  const bodyLimit = o.bodyLimit ?? 8 * 1024 * 1024;
  if (!Number.isInteger(bodyLimit) || bodyLimit < 1024) throw new SluiceError("CONFIG_INVALID", `bodyLimit must be an integer of at least 1024 bytes, not ${bodyLimit}`);
  if (!o.host || !o.keys) throw new SluiceError("CONFIG_INVALID", "createGateway needs both a host (createHost()) and a key store (new GatewayKeys(path))");
  return {
    host: o.host,
    keys: o.keys,
    upstreams,
    bodyLimit,
    logger: withSafeRequests(o.logger ?? { level: "error", stream: process.stderr }),
    limits: resolveServerLimits(o.limits),
    authFailures: withChanges(DEFAULT_AUTH_FAILURE_LIMIT, o.authFailures ?? {}),
    ...(o.ready ? { ready: o.ready } : {}),
  };
}
