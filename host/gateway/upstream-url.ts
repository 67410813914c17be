/**
 * An upstream's base URL as a user gives it, with or without its API version: the SDKs'
 * own defaults differ (`https://api.openai.com/v1`, `https://api.anthropic.com`,
 * `https://generativelanguage.googleapis.com`), and users copy whichever they know. A
 * path that already holds a version segment (`/v1`, `/v1beta`, `/api/v1`, `/v1beta/openai`)
 * is taken as it is; otherwise the protocol's version is appended.
 */
import { SluiceError } from "../errors/sluice-error.js";

export type UpstreamProtocol = "openai" | "anthropic" | "gemini";

/** The version segment each protocol's routes sit under. */
const VERSION: Readonly<Record<UpstreamProtocol, string>> = { openai: "/v1", anthropic: "/v1", gemini: "/v1beta" };
const HAS_VERSION = /\/v\d+(?:[a-z]+\d*)?(?:\/|$)/i;

/**
 * @example upstreamBase("http://127.0.0.1:8000", "openai", "upstream.baseUrl") // "http://127.0.0.1:8000/v1"
 * @example upstreamBase("https://openrouter.ai/api/v1/", "openai", "upstream.baseUrl") // "https://openrouter.ai/api/v1"
 */
export function upstreamBase(given: unknown, protocol: UpstreamProtocol, option: string): string {
  let url: URL;
  try {
    url = new URL(String(given));
  } catch {
    throw new SluiceError("CONFIG_INVALID", `${option} ${JSON.stringify(given)} is not a URL; give the upstream's base URL, e.g. ${example(protocol)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new SluiceError("CONFIG_INVALID", `${option} must be http(s), not ${url.protocol}`);
  url.search = "";
  url.hash = "";
  const path = url.pathname.replace(/\/+$/, "");
  url.pathname = HAS_VERSION.test(`${path}/`) ? path : `${path}${VERSION[protocol]}`;
  return url.href.replace(/\/+$/, "");
}

function example(protocol: UpstreamProtocol): string {
  return protocol === "openai" ? "https://api.openai.com" : protocol === "anthropic" ? "https://api.anthropic.com" : "https://generativelanguage.googleapis.com";
}
