import { SluiceError } from "../errors/sluice-error.js";
import type { Host } from "../host.js";
import type { GatewayKeys } from "./keys.js";

export interface GatewayOptions {
  host: Host;
  upstream: {
    /** The upstream's OpenAI base URL, including its version path, e.g. `https://api.openai.com/v1`. */
    baseUrl: string;
    /** Sent to the upstream as `Authorization: Bearer …`; clients never see it, nor do hooks. */
    apiKey?: string;
    /** How long the upstream may stay silent: the whole answer without streaming, the gap between events with. Default 60 000. */
    timeoutMs?: number;
  };
  keys: GatewayKeys;
  /** Largest request body accepted, in bytes. Default 8 MiB. */
  bodyLimit?: number;
  /** Fastify's logger option. Default off. */
  logger?: boolean | Record<string, unknown>;
}

export interface UpstreamConfig { baseUrl: string; apiKey: string | null; timeoutMs: number }
export interface GatewayConfig { host: Host; keys: GatewayKeys; upstream: UpstreamConfig; bodyLimit: number; logger: boolean | Record<string, unknown> }

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
  const bodyLimit = o.bodyLimit ?? 8 * 1024 * 1024;
  if (!Number.isInteger(bodyLimit) || bodyLimit < 1024) throw new SluiceError("CONFIG_INVALID", `bodyLimit must be an integer of at least 1024 bytes, not ${bodyLimit}`);
  if (!o.host || !o.keys) throw new SluiceError("CONFIG_INVALID", "createGateway needs both a host (createHost()) and a key store (new GatewayKeys(path))");
  return {
    host: o.host,
    keys: o.keys,
    upstream: { baseUrl: url.href.replace(/\/+$/, ""), apiKey: o.upstream.apiKey ?? null, timeoutMs },
    bodyLimit,
    logger: o.logger ?? false,
  };
}
