/**
 * `sluice serve`'s options, declared once: each is a flag and an environment variable
 * (the flag wins), resolved and checked once into a complete {@link ServeConfig}; the
 * same table prints the resolved configuration (`--print-config`) with secrets masked.
 */
import { Option, type Command } from "commander";
import { isLogLevel, LOG_LEVELS, type LogLevel } from "../api/log-options.js";
import { isPostgresUrl, redactDatabaseUrl } from "../storage/postgres.js";
import { defaultMaxConnections } from "../http/server-limits.js";
import { CliError } from "./output.js";
import { upstreamBase, type UpstreamProtocol } from "../gateway/upstream-url.js";

interface Spec {
  flag: string;
  env: string;
  description: string;
  default?: string;
  /** Never printed: its value is replaced by "(set)". */
  secret?: boolean;
  boolean?: boolean;
}

/** Every option of `sluice serve`, in help order. The key is the option's camelCase name. */
export const SERVE_OPTIONS = {
  dataDir: { flag: "--data-dir <dir>", env: "SLUICE_DATA_DIR", description: "database and artifacts", default: ".sluice/data" },
  database: { flag: "--database <url>", env: "SLUICE_DATABASE_URL", description: "a postgres:// URL: keep the registry, plugin code, operation records, payloads and key-value data in this PostgreSQL database, shared by every host given the same URL (default: SQLite files in the data dir, for one host); its password is never printed" },
  host: { flag: "--host <host>", env: "SLUICE_HOST", description: "address to listen on", default: "127.0.0.1" },
  port: { flag: "--port <port>", env: "SLUICE_PORT", description: "port (0: any free one)", default: "8787" },
  token: { flag: "--token <token>", env: "SLUICE_TOKEN", description: "bearer token clients must send, at least 32 characters (prefer SLUICE_TOKEN or --token-file: the command line is visible to other users); without one a token is generated into <data-dir>/api-token", secret: true },
  tokenFile: { flag: "--token-file <file>", env: "SLUICE_TOKEN_FILE", description: "read the bearer token from this file (its first line)" },
  allowedHost: { flag: "--allowed-host <name...>", env: "SLUICE_ALLOWED_HOSTS", description: "more names clients may send in the Host header (in the variable: comma-separated) (a reverse proxy's, this machine's DNS name)" },
  requestTimeoutMs: { flag: "--request-timeout-ms <ms>", env: "SLUICE_REQUEST_TIMEOUT_MS", description: "a whole request (headers and body) must arrive within it", default: "60000" },
  headersTimeoutMs: { flag: "--headers-timeout-ms <ms>", env: "SLUICE_HEADERS_TIMEOUT_MS", description: "request headers must arrive within it", default: "10000" },
  keepAliveTimeoutMs: { flag: "--keep-alive-timeout-ms <ms>", env: "SLUICE_KEEP_ALIVE_TIMEOUT_MS", description: "idle kept-alive connections are closed after it", default: "5000" },
  maxConnections: { flag: "--max-connections <n>", env: "SLUICE_MAX_CONNECTIONS", description: "open connections beyond it are answered 503 with retry-after (clients retry) (default: what the file-descriptor limit holds, 10000 where it cannot be read)" },
  digestKeyFile: { flag: "--digest-key-file <file>", env: "SLUICE_DIGEST_KEY_FILE", description: "the deployment's key: it keys the records' digests (HMAC-SHA-256) and seals stored results and payloads (AES-256-GCM); hosts sharing a --database must share it; default <data-dir>/digest.key, generated on first start" },
  resultRetentionMs: { flag: "--result-retention-ms <ms>", env: "SLUICE_RESULT_RETENTION_MS", description: "how long a resumable operation's real result is kept before it is deleted", default: "86400000" },
  payloadStore: { flag: "--payload-store", env: "SLUICE_PAYLOAD_STORE", description: "keep every stage's payloads (content) in <data-dir>/payloads.db for --payload-retention-ms, so operations can be replayed (`sluice replay`)", boolean: true },
  payloadRetentionMs: { flag: "--payload-retention-ms <ms>", env: "SLUICE_PAYLOAD_RETENTION_MS", description: "how long the payload store keeps an operation's payloads", default: "86400000" },
  workers: { flag: "--workers <n>", env: "SLUICE_WORKERS", description: "sandbox worker threads (default: the machine's parallelism)" },
  maxQueue: { flag: "--max-queue <n>", env: "SLUICE_MAX_QUEUE", description: "guest tasks that may wait for a worker before a new request with a before hook is answered 503 QUEUE_FULL with retry-after; after and chunk hooks always wait (default: twice --max-connections, a task for each connection the API and the gateway accept, so the connection cap is the one limit)" },
  maxModuleMb: { flag: "--max-module-mb <n>", env: "SLUICE_MAX_MODULE_MB", description: "largest plugin module accepted on upload, at most 16 (a JavaScript component embeds a 12 MB engine)", default: "4" },
  upstream: { flag: "--upstream <url>", env: "SLUICE_UPSTREAM", description: "gateway mode: also serve the OpenAI API (/v1/chat/completions, /v1/responses, /v1/embeddings) forwarding to this OpenAI-compatible upstream, with or without its /v1 (e.g. https://api.openai.com); its key comes from SLUICE_UPSTREAM_API_KEY" },
  anthropicUpstream: { flag: "--anthropic-upstream <url>", env: "SLUICE_ANTHROPIC_UPSTREAM", description: "gateway mode: also serve the Anthropic Messages API (/v1/messages) forwarding to this upstream, with or without its /v1 (e.g. https://api.anthropic.com); its key comes from SLUICE_ANTHROPIC_UPSTREAM_API_KEY" },
  geminiUpstream: { flag: "--gemini-upstream <url>", env: "SLUICE_GEMINI_UPSTREAM", description: "gateway mode: also serve the Gemini API (/v1beta/models/{model}:generateContent, :streamGenerateContent) forwarding to this upstream, with or without its /v1beta (e.g. https://generativelanguage.googleapis.com); its key comes from SLUICE_GEMINI_UPSTREAM_API_KEY" },
  gatewayPort: { flag: "--gateway-port <port>", env: "SLUICE_GATEWAY_PORT", description: "port of the gateway (opened when any upstream is given)", default: "8788" },
  upstreamTimeoutMs: { flag: "--upstream-timeout-ms <ms>", env: "SLUICE_UPSTREAM_TIMEOUT_MS", description: "upstream timeout", default: "60000" },
  upstreamMaxMb: { flag: "--upstream-max-mb <n>", env: "SLUICE_UPSTREAM_MAX_MB", description: "largest upstream answer (or stream event) the gateway reads; past it UPSTREAM_TOO_LARGE", default: "16" },
  logLevel: { flag: "--log-level <level>", env: "SLUICE_LOG_LEVEL", description: `JSON log lines on stderr at this level and above: ${LOG_LEVELS.join(", ")}`, default: "info" },
} as const satisfies Record<string, Spec>;

export type Raw = { [K in keyof typeof SERVE_OPTIONS]?: string | boolean | string[] };

/** Adds every option to the command, each with its environment variable. */
export function addServeOptions(cmd: Command): Command {
  for (const spec of Object.values(SERVE_OPTIONS) as Spec[]) {
    // Commander's .env() adds "(env: NAME)" to the help line itself.
    const option = new Option(spec.flag, spec.description).env(spec.env);
    cmd.addOption(spec.default !== undefined ? option.default(spec.default) : option);
  }
  return cmd;
}

/** The resolved configuration of `sluice serve`: every value checked, in its unit. */
export interface ServeConfig {
  dataDir: string;
  /** A postgres:// URL; absent: SQLite in `dataDir`. */
  database?: string;
  host: string;
  port: number;
  token?: string;
  tokenFile?: string;
  allowedHosts: string[];
  limits: { requestTimeoutMs: number; headersTimeoutMs: number; keepAliveTimeoutMs: number; maxConnections: number };
  digestKeyFile?: string;
  resultRetentionMs: number;
  payloadStore: boolean;
  payloadRetentionMs: number;
  workers?: number;
  /** Guest tasks that may wait for a worker (SandboxOptions.maxQueue). */
  maxQueue: number;
  maxModuleBytes: number;
  /** Present when any upstream is given; each protocol's routes are served only with its upstream. */
  gateway?: {
    upstream?: string; port: number; timeoutMs: number; maxBytes: number; apiKey?: string;
    anthropicUpstream?: string; anthropicApiKey?: string; geminiUpstream?: string; geminiApiKey?: string;
  };
  logLevel: LogLevel;
}

function integer(name: keyof typeof SERVE_OPTIONS, value: unknown, min: number, max: number): number {
  const n = Number(value);
  if (typeof value !== "string" || !/^\d+$/.test(value) || n < min || n > max) {
    throw new CliError(`${SERVE_OPTIONS[name].flag.split(" ")[0]} (${SERVE_OPTIONS[name].env}) must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return n;
}

function megabytes(name: keyof typeof SERVE_OPTIONS, value: unknown, max: number): number {
  const n = Number(value);
  if (!(n > 0 && n <= max)) throw new CliError(`${SERVE_OPTIONS[name].flag.split(" ")[0]} (${SERVE_OPTIONS[name].env}) must be more than 0 and at most ${max}, got ${JSON.stringify(value)}`);
  return Math.round(n * 1024 * 1024);
}

function flagOn(value: unknown): boolean {
  if (value === undefined || value === false) return false;
  if (value === true) return true;
  const v = String(value).toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off", ""].includes(v)) return false;
  throw new CliError(`SLUICE_PAYLOAD_STORE must be 1/true/yes/on or 0/false/no/off, got ${JSON.stringify(value)}`);
}

/** Checks every option once; refuses impossible combinations naming both options. */
export function resolveServeConfig(raw: Raw, env: NodeJS.ProcessEnv = process.env): ServeConfig {
  const maxConnections = raw.maxConnections !== undefined ? integer("maxConnections", raw.maxConnections, 1, 1_000_000) : defaultMaxConnections();
  if (raw.token !== undefined && raw.tokenFile !== undefined) throw new CliError("give the token once: --token (or SLUICE_TOKEN) or --token-file (or SLUICE_TOKEN_FILE), not both");
  const logLevel = String(raw.logLevel);
  if (!isLogLevel(logLevel)) throw new CliError(`--log-level (SLUICE_LOG_LEVEL) must be one of ${LOG_LEVELS.join(", ")}, got ${JSON.stringify(logLevel)}`);
  const upstreamOf = (name: "upstream" | "anthropicUpstream" | "geminiUpstream", protocol: UpstreamProtocol): string | undefined => {
    if (raw[name] === undefined) return undefined;
    const given = String(raw[name]);
    try {
      upstreamBase(given, protocol, `${SERVE_OPTIONS[name].flag.split(" ")[0]} (${SERVE_OPTIONS[name].env})`);
    } catch (err) {
      throw new CliError((err as Error).message);
    }
    return given;
  };
  const upstream = upstreamOf("upstream", "openai");
  const anthropicUpstream = upstreamOf("anthropicUpstream", "anthropic");
  const geminiUpstream = upstreamOf("geminiUpstream", "gemini");
  const apiKey = env.SLUICE_UPSTREAM_API_KEY;
  const anthropicApiKey = env.SLUICE_ANTHROPIC_UPSTREAM_API_KEY;
  const geminiApiKey = env.SLUICE_GEMINI_UPSTREAM_API_KEY;
  const database = raw.database !== undefined ? String(raw.database) : undefined;
  if (database !== undefined && !isPostgresUrl(database)) throw new CliError(`--database (SLUICE_DATABASE_URL) must be a postgres:// or postgresql:// URL, got ${JSON.stringify(redactDatabaseUrl(database))}`);
  return {
    dataDir: String(raw.dataDir),
    ...(database !== undefined ? { database } : {}),
    host: String(raw.host),
    port: integer("port", raw.port, 0, 65535),
    ...(raw.token !== undefined ? { token: String(raw.token) } : {}),
    ...(raw.tokenFile !== undefined ? { tokenFile: String(raw.tokenFile) } : {}),
    allowedHosts: raw.allowedHost !== undefined ? [raw.allowedHost].flat().flatMap((s) => String(s).split(",")).map((s) => s.trim()).filter(Boolean) : [],
    limits: {
      requestTimeoutMs: integer("requestTimeoutMs", raw.requestTimeoutMs, 1, 3_600_000),
      headersTimeoutMs: integer("headersTimeoutMs", raw.headersTimeoutMs, 1, 3_600_000),
      keepAliveTimeoutMs: integer("keepAliveTimeoutMs", raw.keepAliveTimeoutMs, 1, 3_600_000),
      maxConnections,
    },
    ...(raw.digestKeyFile !== undefined ? { digestKeyFile: String(raw.digestKeyFile) } : {}),
    resultRetentionMs: integer("resultRetentionMs", raw.resultRetentionMs, 1, 365 * 86_400_000),
    payloadStore: flagOn(raw.payloadStore),
    payloadRetentionMs: integer("payloadRetentionMs", raw.payloadRetentionMs, 1, 365 * 86_400_000),
    ...(raw.workers !== undefined ? { workers: integer("workers", raw.workers, 1, 256) } : {}),
    // Each connection of either server holds one request, and a request at most one waiting task.
    maxQueue: raw.maxQueue !== undefined ? integer("maxQueue", raw.maxQueue, 0, 2_000_000) : 2 * maxConnections,
    maxModuleBytes: megabytes("maxModuleMb", raw.maxModuleMb, 16),
    ...(upstream !== undefined || anthropicUpstream !== undefined || geminiUpstream !== undefined ? {
      gateway: {
        ...(upstream !== undefined ? { upstream } : {}),
        port: integer("gatewayPort", raw.gatewayPort, 0, 65535), timeoutMs: integer("upstreamTimeoutMs", raw.upstreamTimeoutMs, 1, 3_600_000),
        maxBytes: megabytes("upstreamMaxMb", raw.upstreamMaxMb, 1024),
        ...(upstream !== undefined && apiKey ? { apiKey } : {}),
        ...(anthropicUpstream !== undefined ? { anthropicUpstream, ...(anthropicApiKey ? { anthropicApiKey } : {}) } : {}),
        ...(geminiUpstream !== undefined ? { geminiUpstream, ...(geminiApiKey ? { geminiApiKey } : {}) } : {}),
      },
    } : {}),
    logLevel,
  };
}

/** The configuration as `--print-config` shows it: secrets replaced by "(set)", absent token explained. */
export function maskedConfig(config: ServeConfig): Record<string, unknown> {
  const token = config.token !== undefined ? "(set)" : config.tokenFile !== undefined ? `(from ${config.tokenFile})` : "(generated into <data-dir>/api-token on start unless it exists)";
  // The token in its place after the address, whether or not one was given.
  const { dataDir, host, port, token: _secret, database, ...rest } = config;
  return {
    dataDir, database: database !== undefined ? redactDatabaseUrl(database) : "(SQLite in <data-dir>)", host, port, token,
    ...rest,
    ...(config.gateway ? {
      gateway: {
        ...config.gateway,
        ...(config.gateway.apiKey !== undefined ? { apiKey: "(set)" } : {}),
        ...(config.gateway.anthropicApiKey !== undefined ? { anthropicApiKey: "(set)" } : {}),
        ...(config.gateway.geminiApiKey !== undefined ? { geminiApiKey: "(set)" } : {}),
      },
    } : {}),
  };
}
