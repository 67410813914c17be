/** `sluice serve`: the management API over the data directory, until SIGINT/SIGTERM. */
import { Option } from "commander";
import { CliError, print, step } from "../output.js";
import type { RegisterCommand } from "./types.js";

export const serveCommand: RegisterCommand = (program) => {
  program.command("serve")
    .description("serve the management API (plugins, bindings, releases) from a data directory")
    .option("--data-dir <dir>", "database and artifacts", ".sluice/data")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--port <port>", "port (0: any free one)", "8787")
    .addOption(new Option("--token <token>", "bearer token clients must send, at least 32 characters (prefer SLUICE_TOKEN or --token-file: the command line is visible to other users); without one a token is generated into <data-dir>/api-token").env("SLUICE_TOKEN"))
    .option("--token-file <file>", "read the bearer token from this file (its first line)")
    .option("--allowed-host <name...>", "more names clients may send in the Host header (a reverse proxy's, this machine's DNS name)")
    .option("--request-timeout-ms <ms>", "a whole request (headers and body) must arrive within it", "60000")
    .option("--headers-timeout-ms <ms>", "request headers must arrive within it", "10000")
    .option("--keep-alive-timeout-ms <ms>", "idle kept-alive connections are closed after it", "5000")
    .option("--max-connections <n>", "open connections beyond it are refused", "256")
    .addOption(new Option("--digest-key-file <file>", "key of the records' digests (HMAC-SHA-256); default <data-dir>/digest.key, generated on first start").env("SLUICE_DIGEST_KEY_FILE"))
    .option("--result-retention-ms <ms>", "how long a resumable operation's real result is kept before it is deleted", "86400000")
    .option("--workers <n>", "sandbox worker threads")
    .option("--max-module-mb <n>", "largest plugin module accepted on upload, at most 16 (a JavaScript component embeds a 12 MB engine)", "4")
    .option("--upstream <url>", "gateway mode: also serve an OpenAI-compatible API (/v1/chat/completions, /v1/embeddings) forwarding to this upstream; its key comes from SLUICE_UPSTREAM_API_KEY")
    .option("--gateway-port <port>", "port of the OpenAI-compatible gateway", "8788")
    .option("--upstream-timeout-ms <ms>", "upstream timeout", "60000")
    .option("--upstream-max-mb <n>", "largest upstream answer (or stream event) the gateway reads; past it UPSTREAM_TOO_LARGE", "16")
    .action(async (opts: { dataDir: string; host: string; port: string; token?: string; tokenFile?: string; allowedHost?: string[]; requestTimeoutMs: string; headersTimeoutMs: string; keepAliveTimeoutMs: string; maxConnections: string; digestKeyFile?: string; resultRetentionMs: string; workers?: string; maxModuleMb: string; upstream?: string; gatewayPort: string; upstreamTimeoutMs: string; upstreamMaxMb: string }) => {
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be 0-65535, got ${opts.port}`);
      if (!(Number(opts.maxModuleMb) > 0 && Number(opts.maxModuleMb) <= 16)) throw new CliError(`--max-module-mb must be more than 0 and at most 16, got ${opts.maxModuleMb}`);
      const limits = { requestTimeoutMs: Number(opts.requestTimeoutMs), headersTimeoutMs: Number(opts.headersTimeoutMs), keepAliveTimeoutMs: Number(opts.keepAliveTimeoutMs), maxConnections: Number(opts.maxConnections) };
      const { readTokenFile, checkToken } = await import("../../api/token.js");
      // Checked before anything is opened: a bad token is the operator's to fix first.
      if (opts.token !== undefined && opts.tokenFile !== undefined) throw new CliError("give the token once: --token (or SLUICE_TOKEN) or --token-file, not both");
      const token = opts.tokenFile !== undefined ? readTokenFile(opts.tokenFile) : opts.token !== undefined ? checkToken(opts.token, "--token / SLUICE_TOKEN") : undefined;
      const { Registry } = await import("../../registry/registry.js");
      const { startApiServer } = await import("../../api/server.js");
      const digestSecret = opts.digestKeyFile !== undefined ? (await import("node:fs")).readFileSync(opts.digestKeyFile, "utf8").trim() : undefined;
      const registry = await step(`opening ${opts.dataDir}`, () => Registry.open({
        dataDir: opts.dataDir, maxModuleBytes: Math.round(Number(opts.maxModuleMb) * 1024 * 1024), resultRetentionMs: Number(opts.resultRetentionMs),
        ...(digestSecret !== undefined ? { digestSecret } : {}), ...(opts.workers ? { hostOptions: { workers: Number(opts.workers) } } : {}),
      }));
      const { GatewayKeys } = await import("../../gateway/keys.js");
      const path = await import("node:path");
      const gatewayKeys = new GatewayKeys(path.join(opts.dataDir, "sluice.db"));
      let server;
      let gateway: { close: () => Promise<void> } | undefined;
      try {
        server = await startApiServer({ registry, host: opts.host, port, gatewayKeys, limits, ...(token ? { token } : {}), ...(opts.allowedHost ? { allowedHosts: opts.allowedHost } : {}) });
        if (opts.upstream) {
          const { createGateway } = await import("../../gateway/gateway.js");
          const app = createGateway({ host: registry.host, keys: gatewayKeys, limits, upstream: { baseUrl: opts.upstream, timeoutMs: Number(opts.upstreamTimeoutMs), maxBytes: Math.round(Number(opts.upstreamMaxMb) * 1024 * 1024), ...(process.env.SLUICE_UPSTREAM_API_KEY ? { apiKey: process.env.SLUICE_UPSTREAM_API_KEY } : {}) } });
          const url = await app.listen({ host: opts.host, port: Number(opts.gatewayPort) });
          gateway = app;
          print(`gateway listening on ${url}/v1 (OpenAI-compatible; upstream ${opts.upstream}; keys from POST /api/v1/gateway/keys)`);
        }
      } catch (err) {
        await server?.close();
        gatewayKeys.close();
        await registry.close();
        throw err;
      }
      print(`sluice listening on ${server.url} (data ${opts.dataDir}, active revision ${registry.activeRevision()})`);
      // Printed once, here; local sluice commands read it from the file.
      if (server.tokenFile) print(`token ${server.token} (generated; written to ${server.tokenFile}, mode 0600; give your own with SLUICE_TOKEN or --token-file)`);
      const stop = async () => {
        await gateway?.close();
        await server.close();
        gatewayKeys.close();
        await registry.close();
        process.exit(0);
      };
      process.once("SIGINT", () => void stop());
      process.once("SIGTERM", () => void stop());
    });
};
