/**
 * The operator console (console/, built into build/console by scripts/build.mjs): static
 * files under /console, served without the token (they hold no data: the page asks for the
 * token and sends it on every API call, like any client), under a Content-Security-Policy
 * that lets the page load only its own files and talk only to this server. The Host and
 * Origin guards still run first, so a rebinding or cross-site page gets nothing here either.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply } from "fastify";
import { SluiceError } from "../../errors/sluice-error.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** A console file: served without the bearer token (auth.ts). */
    publicAsset?: boolean;
  }
}

export const CONSOLE_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "font-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join("; ");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml", ".png": "image/png", ".ico": "image/x-icon", ".json": "application/json",
};

/** build/console of this package, from host/api/routes (source) or dist/host/api/routes (compiled). */
export function consoleDir(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return path.join(dir, "build/console");
    if (path.dirname(dir) === dir) return path.resolve("build/console");
  }
}

interface Asset { type: string; body: Buffer }

/** Every built file, read once: the set of names served is fixed, so no path reaches the disk. */
function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const walk = (sub: string): void => {
    for (const entry of readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(rel);
      else { const type = TYPES[path.extname(entry.name)]; if (type) assets.set(rel, { type, body: readFileSync(path.join(dir, rel)) }); }
    }
  };
  if (existsSync(dir)) walk("");
  return assets;
}

function send(reply: FastifyReply, asset: Asset, immutable: boolean): FastifyReply {
  return reply
    .header("content-type", asset.type)
    .header("content-security-policy", CONSOLE_CSP)
    .header("x-content-type-options", "nosniff")
    .header("referrer-policy", "no-referrer")
    .header("cross-origin-opener-policy", "same-origin")
    .header("cross-origin-resource-policy", "same-origin")
    .header("x-frame-options", "DENY")
    .header("cache-control", immutable ? "public, max-age=31536000, immutable" : "no-cache")
    .send(asset.body);
}

export function consoleRoutes(app: FastifyInstance, dir: string = consoleDir()): void {
  const assets = loadAssets(dir);
  const config = { publicAsset: true };
  const index = (): Asset => {
    const asset = assets.get("index.html");
    if (!asset) throw new SluiceError("ROUTE_NOT_FOUND", "the console is not built in this installation: run `npm run build` (it writes build/console)");
    return asset;
  };
  app.get("/console", { config, schema: { hide: true } }, async (_request, reply) => reply.redirect("/console/"));
  app.get("/console/", { config, schema: { hide: true } }, async (_request, reply) => send(reply, index(), false));
  app.get<{ Params: { "*": string } }>("/console/*", { config, schema: { hide: true } }, async (request, reply) => {
    const asset = assets.get(request.params["*"]);
    if (!asset) throw new SluiceError("ROUTE_NOT_FOUND", `the console has no file ${JSON.stringify(request.params["*"].slice(0, 100))}`);
    // Vite names assets by content hash: they never change under one name.
    return send(reply, asset, request.params["*"].startsWith("assets/"));
  });
}
