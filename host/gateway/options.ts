import { SluiceError } from "../errors/sluice-error.js";
import type { Host } from "../host.js";
import type { GatewayKeys } from "../keys/keys.js";
import { resolveServerLimits, type ServerLimits } from "../http/server-limits.js";
import { DEFAULT_AUTH_FAILURE_LIMIT, type AuthFailureLimit } from "../http/auth-failures.js";
import { withChanges } from "../objects/with-keys.js";

/** What {@link createGateway} needs: the host that runs the hooks, the key store, the upstream and the server's limits. */
export interface GatewayOptions {
  host: Host;
  upstream: {
    /** The upstream's OpenAI base URL, including its version path, e.g. `https://api.openai.com/v1`. */
    baseUrl: string;
    /** Sent to the upstream as `Authorization: Bearer …`; clients never see it, nor do hooks. */
    apiKey?: string;
    /** How long the upstream may stay silent: the whole answer without streaming, the gap between events with. Default 60 000. */
    timeoutMs?: number;
    /** Largest upstream answer (without streaming) or stream event read, in bytes; past it UPSTREAM_TOO_LARGE. Default 16 MiB. */
    maxBytes?: number;
  };
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
export interface GatewayConfig { host: Host; keys: GatewayKeys; upstream: UpstreamConfig; bodyLimit: number; logger: boolean | Record<string, unknown>; limits: ServerLimits; authFailures: AuthFailureLimit; ready?: () => Promise<unknown> }

/** Resolves the options once, at the entry; nothing downstream re-checks them. */
export function resolveGatewayOptions(o: GatewayOptions): GatewayConfig {
  let url: URL;
  try {
    url = new URL(o.upstream?.baseUrl);
  } catch {
    throw new SluiceError("CONFIG_INVALID", `upstream.baseUrl ${JSON.stringify(o.upstream?.baseUrl)} is not a URL; give the upstream's OpenAI base URL, e.g. https://api.openai.com/v1`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new SluiceError("CONFIG_INVALID", `upstream.baseUrl must be http(s), not ${url.protocol}`);
  const timeoutMs = o.upstream.timeoutMs ?? 60_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new SluiceError("CONFIG_INVALID", `upstream.timeoutMs must be a positive integer (milliseconds), not ${timeoutMs}`);
  const maxBytes = o.upstream.maxBytes ?? 16 * 1024 * 1024;
  if (!Number.isInteger(maxBytes) || maxBytes < 1024) throw new SluiceError("CONFIG_INVALID", `upstream.maxBytes must be an integer of at least 1024 bytes, not ${maxBytes}`);
  const bodyLimit = o.bodyLimit ?? 8 * 1024 * 1024;
  if (!Number.isInteger(bodyLimit) || bodyLimit < 1024) throw new SluiceError("CONFIG_INVALID", `bodyLimit must be an integer of at least 1024 bytes, not ${bodyLimit}`);
  if (!o.host || !o.keys) throw new SluiceError("CONFIG_INVALID", "createGateway needs both a host (createHost()) and a key store (new GatewayKeys(path))");
  return {
    host: o.host,
    keys: o.keys,
    upstream: { baseUrl: url.href.replace(/\/+$/, ""), apiKey: o.upstream.apiKey ?? null, timeoutMs, maxBytes },
    bodyLimit,
    logger: o.logger ?? { level: "error", stream: process.stderr },
    limits: resolveServerLimits(o.limits),
    authFailures: withChanges(DEFAULT_AUTH_FAILURE_LIMIT, o.authFailures ?? {}),
    ...(o.ready ? { ready: o.ready } : {}),
  };
}
