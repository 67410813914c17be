/**
 * What a client may learn of an upstream error: its status, its code and type when they
 * are plain identifiers, and its message with anything key-like removed. Upstreams put
 * credentials in their messages (a partly masked API key on a 401), and the credential is
 * the operator's, not the client's. On 401 and 403 the message is dropped altogether: the
 * upstream refused the gateway's key, which the client can do nothing about. Network
 * addresses (an IP, `host:port`) are removed too: a proxy upstream (a load balancer, an
 * LLM router) names its own backends in its errors, which is the operator's topology.
 */

const IDENTIFIER = /^[A-Za-z0-9_.-]{1,64}$/;
/** Long runs of key-like characters (a key, a masked key, a bearer token); `*` is how upstreams mask. */
const KEY_LIKE = /[A-Za-z0-9_\-*.]*(?:sk|pk|rk|key|tok)[-_][A-Za-z0-9_\-*.]{3,}|[A-Za-z0-9_\-]*\*{3,}[A-Za-z0-9_\-*]*|[A-Za-z0-9_\-]{24,}/gi;
/** IPv4 and bracketed IPv6 addresses, and `host:port` with a dotted host or localhost, each with an optional port. */
const ADDRESS = /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b|\[[0-9a-f:.]+\](?::\d{1,5})?|\b(?:localhost|[a-z0-9-]+(?:\.[a-z0-9-]+)+):\d{1,5}\b/gi;
export const UPSTREAM_MESSAGE_MAX = 300;

export interface SanitisedUpstreamError {
  message: string | null;
  type: string | null;
  code: string | null;
  param: string | null;
  /** Google's status name (`FAILED_PRECONDITION`, `RESOURCE_EXHAUSTED`, …). */
  status: string | null;
}

export function sanitiseUpstreamError(status: number, error: unknown): SanitisedUpstreamError {
  const e = typeof error === "object" && error !== null ? (error as Record<string, unknown>) : {};
  const id = (v: unknown): string | null => (typeof v === "string" && IDENTIFIER.test(v) ? v : null);
  const message = status === 401 || status === 403 || typeof e.message !== "string"
    ? null
    : e.message.replace(ADDRESS, "[address]").replace(KEY_LIKE, "[redacted]").slice(0, UPSTREAM_MESSAGE_MAX);
  return { message, type: id(e.type), code: id(e.code), param: id(e.param), status: id(e.status) };
}

/** A Google error's own wait, read from its RetryInfo detail (`"retryDelay": "37s"`), in whole seconds; a wait past an hour is no advice. */
export function googleRetryDelay(error: unknown): number | undefined {
  const details = typeof error === "object" && error !== null ? (error as { details?: unknown }).details : undefined;
  if (!Array.isArray(details)) return undefined;
  for (const d of details) {
    if (typeof d !== "object" || d === null || (d as Record<string, unknown>)["@type"] !== "type.googleapis.com/google.rpc.RetryInfo") continue;
    const m = /^(\d+(?:\.\d+)?)s$/.exec(String((d as { retryDelay?: unknown }).retryDelay ?? ""));
    const seconds = m ? Math.ceil(Number(m[1])) : NaN;
    if (seconds >= 0 && seconds <= 3600) return seconds;
  }
  return undefined;
}
