/**
 * Checks that keep a browser on the operator's machine from driving the API, run before
 * authentication and before the body is read:
 * - Host must name the address the server listens on or a loopback name (a DNS-rebinding
 *   page reaches 127.0.0.1 under its own host name);
 * - a request from a web page of another origin is refused (Origin, or Sec-Fetch-Site);
 *   the API serves no pages, so no legitimate caller is a cross-origin page;
 * - a request body must be application/json, which a page cannot send cross-origin
 *   without a CORS preflight that this server never answers.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { SluiceError } from "../errors/sluice-error.js";
import { isProbe } from "../http/probes.js";

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "::1"];
const WILDCARDS = new Set(["0.0.0.0", "::", ""]);
const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export interface GuardOptions {
  /** The address the server listens on. */
  listenHost: string;
  /** More host names clients may use (a reverse proxy's, the machine's DNS name). */
  allowedHosts?: readonly string[];
}

/** `example.com:8787` → { name: "example.com", port: "8787" }; IPv6 in brackets. */
function splitHost(value: string): { name: string; port: string | undefined } {
  const v = value.trim().toLowerCase();
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(v);
  if (bracket) return { name: bracket[1]!, port: bracket[2] };
  const colon = v.lastIndexOf(":");
  if (colon > 0 && v.indexOf(":") === colon) return { name: v.slice(0, colon), port: v.slice(colon + 1) };
  return { name: v, port: undefined };
}

export function installRequestGuards(app: FastifyInstance, options: GuardOptions): void {
  const listen = splitHost(options.listenHost).name;
  const names = new Set([...LOOPBACK_NAMES, listen, ...(options.allowedHosts ?? []).map((h) => splitHost(h).name)]);
  // Served on every address: any name can reach it, and the token is what protects it.
  const anyName = WILDCARDS.has(listen) && !options.allowedHosts?.length;
  const port = (): string | undefined => {
    const address = app.server.address();
    return typeof address === "object" && address ? String(address.port) : undefined;
  };
  const allowed = (hostValue: string): boolean => {
    const { name, port: given } = splitHost(hostValue);
    const listening = port();
    if (listening !== undefined && given !== undefined && given !== listening) return false;
    return anyName || names.has(name) || /^127(\.\d{1,3}){3}$/.test(name);
  };

  app.addHook("onRequest", async (request: FastifyRequest) => {
    // A probe answers a status only, to any name: an orchestrator sends the pod's address as Host.
    if (isProbe(request)) return;
    const host = request.headers.host;
    if (typeof host !== "string" || !allowed(host)) {
      throw new SluiceError("HOST_NOT_ALLOWED", `Host ${JSON.stringify(String(host ?? "").slice(0, 100))} is not an address of this server; use ${options.listenHost} or a loopback name (or start it with --allowed-host)`, {});
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, host)) {
      throw new SluiceError("ORIGIN_NOT_ALLOWED", `requests from web pages of another origin (${String(origin).slice(0, 100)}) are refused`, {});
    }
    const site = request.headers["sec-fetch-site"];
    if (site === "cross-site" || site === "same-site") throw new SluiceError("ORIGIN_NOT_ALLOWED", `requests from web pages of another site (Sec-Fetch-Site: ${site}) are refused`, {});
    if (WRITE_METHODS.has(request.method) && hasBody(request) && !isJson(request.headers["content-type"])) {
      throw new SluiceError("MEDIA_TYPE_UNSUPPORTED", `send the body as application/json, not ${JSON.stringify(String(request.headers["content-type"] ?? "no content type").slice(0, 100))}`, {});
    }
  });
}

/** A page of this very server (none exist today) is the only origin allowed. */
function sameOrigin(origin: string | string[], host: string): boolean {
  if (typeof origin !== "string") return false;
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && url.host.toLowerCase() === host.trim().toLowerCase();
  } catch {
    return false; // "null" (sandboxed frames, file: pages) and anything unparsable
  }
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers["content-length"];
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0") || request.headers["content-type"] !== undefined;
}

function isJson(type: string | undefined): boolean {
  return typeof type === "string" && /^application\/json\s*(;|$)/i.test(type.trim());
}
