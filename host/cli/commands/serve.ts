/** `sluice serve`: the management API (and gateway) over the data directory, until SIGINT/SIGTERM. */
import path from "node:path";
import { emit, print, step } from "../output.js";
import { addServeOptions, maskedConfig, resolveServeConfig, type ServeConfig } from "../serve-config.js";
import type { DefineCommand } from "./types.js";
import { connectionsWithin, descriptorLimit } from "../../http/server-limits.js";
import { upstreamBase } from "../../gateway/upstream-url.js";

const PROTOCOL_LABEL = { openai: "OpenAI", anthropic: "Anthropic", gemini: "Gemini" } as const;

export const serveCommand: DefineCommand = (cmd) => {
  addServeOptions(cmd)
    .option("--print-config", "print the resolved configuration (secrets masked) and exit")
    .option("--json", "with --print-config: print JSON")
    .action(async (raw: Parameters<typeof resolveServeConfig>[0] & { printConfig?: boolean; json?: boolean }) => {
      const config = resolveServeConfig(raw);
      if (raw.printConfig) {
        const masked = maskedConfig(config);
        return emit({ json: raw.json === true }, masked, () => configLines(masked));
      }
      await serve(config);
    });
};

/**
 * A connection cap the file-descriptor limit cannot hold: past the limit, accepting fails and
 * the connections waiting are reset instead of answered 503, and a request admitted cannot
 * reach the upstream. Said once at start, with the way out.
 */
function warnDescriptorLimit(maxConnections: number, gateway: boolean, log: { warn: (o: object, msg: string) => void }): void {
  const descriptors = descriptorLimit();
  if (descriptors === undefined) return;
  const fits = connectionsWithin(descriptors);
  const event = { event: "connections.limited", maxConnections, descriptorLimit: descriptors, connectionsWithinLimit: fits };
  if (maxConnections > fits) log.warn(event, `--max-connections ${maxConnections} is more than the file-descriptor limit (${descriptors}) holds (${fits} a server): raise the limit (ulimit -n, LimitNOFILE=) or lower the cap, or connections past the limit are reset`);
  // Low for a gateway's load; the management API alone (`sluice dev`) needs few connections.
  else if (gateway && maxConnections === fits && fits < 10_000) log.warn(event, `the file-descriptor limit (${descriptors}) holds ${fits} connections a server: raise it (ulimit -n, LimitNOFILE=) for a gateway's load`);
}

function configLines(value: Record<string, unknown>, prefix = ""): string[] {
  return Object.entries(value).flatMap(([k, v]) => (v !== null && typeof v === "object" && !Array.isArray(v) ? configLines(v as Record<string, unknown>, `${prefix}${k}.`) : [`${prefix}${k} = ${JSON.stringify(v)}`]));
}

/**
 * Runs the server until SIGINT/SIGTERM (`sluice serve`, and `sluice dev` beside its watch,
 * with `devRevisions`: see RegistryOptions.devRevisions); resolves with its registry once it listens.
 */
export async function serve(config: ServeConfig, options: { devRevisions?: boolean } = {}): Promise<{ registry: import("../../registry/registry.js").Registry }> {
  const { readTokenFile, checkToken } = await import("../../api/token.js");
  // Checked before anything is opened: a bad token is the operator's to fix first.
  const token = config.tokenFile !== undefined ? readTokenFile(config.tokenFile) : config.token !== undefined ? checkToken(config.token, "--token / SLUICE_TOKEN") : undefined;
  // Before anything is opened or written (database, migrations, digest key, token).
  const { portInUse, probePort } = await import("../port-probe.js");
  await probePort(config.host, config.port);
  if (config.gateway) await probePort(config.host, config.gateway.port, "--gateway-port", "SLUICE_GATEWAY_PORT");
  const { pino } = await import("pino");
  const { logOptions } = await import("../../api/log-options.js");
  const logging = logOptions(config.logLevel);
  const log = pino(logging, logging.stream);
  warnDescriptorLimit(config.limits.maxConnections, config.gateway !== undefined, log);
  const { Registry } = await import("../../registry/registry.js");
  const { startApiServer } = await import("../../api/server.js");
  const digestSecret = config.digestKeyFile !== undefined ? (await import("node:fs")).readFileSync(config.digestKeyFile, "utf8").trim() : undefined;
  let payloads: import("../../records/store.js").PayloadStore | undefined;
  // On a shared database the payloads live in it too (the registry opens them), so any host can replay.
  if (config.payloadStore && config.database === undefined) {
    const { ensurePrivateDir } = await import("../../storage/private-files.js");
    const { openSqlitePayloads } = await import("../../records/sqlite-store.js");
    ensurePrivateDir(path.resolve(config.dataDir));
    // Sealed under the deployment's key (the given file, else <data>/digest.key, as the registry's records).
    payloads = openSqlitePayloads(path.join(config.dataDir, "payloads.db"), { retentionMs: config.payloadRetentionMs, ...(digestSecret !== undefined ? { key: digestSecret } : {}) });
  }
  const { redactDatabaseUrl } = await import("../../storage/postgres.js");
  const registry = await step(`opening ${config.database !== undefined ? redactDatabaseUrl(config.database) : config.dataDir}`, () => Registry.open({
    dataDir: config.dataDir, maxModuleBytes: config.maxModuleBytes, resultRetentionMs: config.resultRetentionMs, ...(options.devRevisions ? { devRevisions: true } : {}),
    ...(config.database !== undefined ? { database: config.database, ...(config.payloadStore ? { payloadRetentionMs: config.payloadRetentionMs } : {}) } : {}),
    ...(digestSecret !== undefined ? { digestSecret } : {}),
    onReleaseSync: (r) => {
      if (r.kind === "switched") log.info({ event: "release.followed", revision: r.to, previousRevision: r.from, loadMs: r.loadMs }, "serving the release activated on the database");
      else if (r.kind === "load_failed") log.error({ event: "release.load_failed", revision: r.failure.revision, servingRevision: r.serving, errorCode: r.failure.code }, "cannot load the active release; still serving the previous one");
      else if (r.kind === "check_failed") log.warn({ event: "release.check_failed", errorCode: r.code }, "cannot read the active revision from the database; will check again");
      else if (r.kind === "prefetched") log.info({ event: "plugin.prefetched", plugin: r.plugin, loadMs: r.loadMs }, "compiled a plugin version stored by another host");
      else log.warn({ event: "plugin.prefetch_failed", plugin: r.plugin, errorCode: r.code }, "cannot load a plugin version stored by another host; a release using it will not load here");
    },
    hostOptions: {
      ...(config.workers !== undefined ? { workers: config.workers } : {}),
      maxQueue: config.maxQueue,
      ...(payloads ? { payloads } : {}),
      onWorkerEnded: (e) => log.warn({ event: "worker.restarted", booted: e.booted, replaceInMs: e.replaceInMs, reason: e.reason }, "sandbox worker ended; a replacement is starting"),
      // The id and code only: the row is left as it is for an operator, and resuming it is refused.
      onRecordUnreadable: (e) => log.error({ event: "record.unreadable", operationId: e.operationId, errorCode: e.error.code }, "an unfinished operation's record cannot be read; left as it is, never resumed"),
    },
  }));
  const stopLogging = registry.host.observer.on((event) => {
    // Ids, codes and counts only: an event's reason text can quote a guest.
    if (event.type === "release.activated") log.info({ event: event.type, revision: event.revision, previousRevision: event.previous_revision, bindings: event.bindings.length }, "release activated");
    else if (event.type === "plugin.quarantined") log.warn({ event: event.type, plugin: event.plugin_ref, failures: event.failures, errorCode: event.error_code, until: event.until, bindings: event.binding_ids }, "plugin quarantined");
    else if (event.type === "plugin.quarantine_lifted") log.info({ event: event.type, plugin: event.plugin_ref, by: event.by }, "plugin quarantine lifted");
  }, ["release.activated", "plugin.quarantined", "plugin.quarantine_lifted"]);
  const { GatewayKeys } = await import("../../keys/keys.js");
  // With --database the keys are the fleet's: a key issued through any host works on every host.
  const gatewayKeys = new GatewayKeys(registry.shared?.gatewayKeys ?? path.join(config.dataDir, "sluice.db"));
  // The agents' door pairs tool calls and logs events beside the records: the fleet's with --database.
  const { openSqliteAgentDoor } = await import("../../records/sqlite-agent-door-store.js");
  const agentDoor = registry.shared?.agentDoor ?? openSqliteAgentDoor(path.join(config.dataDir, "sluice.db"));
  let server;
  let gateway: { close: () => Promise<void> } | undefined;
  try {
    server = await startApiServer({
      registry, host: config.host, port: config.port, gatewayKeys, agentDoor, limits: config.limits, logger: logging,
      ...(token ? { token } : {}), ...(config.allowedHosts.length ? { allowedHosts: config.allowedHosts } : {}),
    });
    if (config.gateway) {
      const g = config.gateway;
      const { createGateway, PROTOCOL_ROUTES } = await import("../../gateway/gateway.js");
      const upstreams = {
        ...(g.upstream !== undefined ? { upstream: { baseUrl: g.upstream, timeoutMs: g.timeoutMs, maxBytes: g.maxBytes, ...(g.apiKey ? { apiKey: g.apiKey } : {}) } } : {}),
        ...(g.anthropicUpstream !== undefined ? { anthropicUpstream: { baseUrl: g.anthropicUpstream, timeoutMs: g.timeoutMs, maxBytes: g.maxBytes, ...(g.anthropicApiKey ? { apiKey: g.anthropicApiKey } : {}) } } : {}),
        ...(g.geminiUpstream !== undefined ? { geminiUpstream: { baseUrl: g.geminiUpstream, timeoutMs: g.timeoutMs, maxBytes: g.maxBytes, ...(g.geminiApiKey ? { apiKey: g.geminiApiKey } : {}) } } : {}),
      };
      const app = createGateway({ host: registry.host, keys: gatewayKeys, limits: config.limits, logger: logging, ready: () => registry.activeRevision(), ...upstreams });
      const url = await app.listen({ host: config.host, port: g.port });
      gateway = app;
      // The URL each protocol's calls go to, as resolved (its version segment added when the flag had none).
      const named: Record<string, string> = {};
      if (g.upstream !== undefined) named.openai = upstreamBase(g.upstream, "openai", "--upstream");
      if (g.anthropicUpstream !== undefined) named.anthropic = upstreamBase(g.anthropicUpstream, "anthropic", "--anthropic-upstream");
      if (g.geminiUpstream !== undefined) named.gemini = upstreamBase(g.geminiUpstream, "gemini", "--gemini-upstream");
      log.info({ event: "gateway.listening", url, upstreams: named }, "gateway listening");
      // With an OpenAI upstream the first line names the OpenAI base URL clients take, as it always has.
      print(`gateway listening on ${url}${named.openai ? "/v1" : ""} (keys from POST /api/v1/gateway/keys)`);
      for (const [protocol, base] of Object.entries(named)) print(`  ${PROTOCOL_LABEL[protocol as keyof typeof PROTOCOL_LABEL]}: ${PROTOCOL_ROUTES[protocol as keyof typeof PROTOCOL_ROUTES].join(", ")} -> upstream ${base}`);
    }
  } catch (err) {
    stopLogging();
    await server?.close();
    await gatewayKeys.close();
    await agentDoor.close();
    await registry.close();
    await payloads?.close();
    // Taken between the probe and the listen.
    if ((err as NodeJS.ErrnoException).code === "EADDRINUSE") throw server ? portInUse(config.host, config.gateway!.port, "--gateway-port", "SLUICE_GATEWAY_PORT") : portInUse(config.host, config.port);
    throw err;
  }
  const activeRevision = await registry.activeRevision();
  log.info({ event: "api.listening", url: server.url, dataDir: config.dataDir, activeRevision, payloadStore: config.payloadStore }, "sluice listening");
  print(`sluice listening on ${server.url} (data ${config.dataDir}${config.database !== undefined ? `, database ${redactDatabaseUrl(config.database)}` : ""}, active revision ${activeRevision})`);
  print(`operator console: ${server.url}/console/ (sign in with the API token)`);
  // Printed once, here, on stdout (never in the log); local sluice commands read it from the file.
  if (server.tokenGenerated) print(`token ${server.token} (generated; written to ${server.tokenFile}, mode 0600, and kept across restarts: \`sluice token rotate\` replaces it; give your own with SLUICE_TOKEN or --token-file)`);
  else if (server.tokenFile) print(`token in ${server.tokenFile} (kept from an earlier start; \`sluice token rotate\` replaces it)`);
  const stop = async (signal: string) => {
    log.info({ event: "shutdown", signal }, "stopping");
    stopLogging();
    await gateway?.close();
    await server.close();
    await gatewayKeys.close();
    await agentDoor.close();
    await registry.close();
    await payloads?.close();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
  return { registry };
}
