/**
 * The PostgreSQL engine every store of a fleet shares: one pool per process, transactions
 * with the isolation a check-then-write needs (retried when PostgreSQL aborts one for a
 * serialization failure or a deadlock), and LISTEN/NOTIFY on a dedicated connection that
 * reconnects by itself. The stores (registry, records, keys, quarantine, kv) are written
 * against this, never against `pg` directly.
 */
import pg from "pg";
import { SluiceError } from "../errors/sluice-error.js";
import { MIGRATION_LOCK, runMigrations, type MigrationSet, type MigrationTarget } from "./migrations.js";

export type Isolation = "read committed" | "repeatable read" | "serializable";

/** What a transaction body is handed: queries on the one connection the transaction holds. */
export interface Sql {
  /**
   * `name` makes it a prepared statement on each connection (parsed and planned once there,
   * not on every call): give one name to one text only, and only to a bounded set of texts.
   */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: readonly unknown[], name?: string): Promise<pg.QueryResult<R>>;
}

export interface PostgresOptions {
  /** Pool size per process (default 10). */
  max?: number;
  /** Tries of a transaction PostgreSQL aborted for a serialization failure or deadlock (default 20). */
  retries?: number;
  /** Shown in pg_stat_activity, so an operator can tell the hosts apart. */
  applicationName?: string;
  /** How long getting a connection may take before the call fails STORE_UNAVAILABLE (default 5000). */
  connectTimeoutMs?: number;
}

/** A notification handler; `onReconnect` runs after the listening connection came back (notifications may have been missed meanwhile). */
export interface Listener {
  onNotify(payload: string): void;
  onReconnect?(): void;
}

export interface PostgresEngine extends Sql {
  readonly url: string;
  /** Runs `fn` in one transaction at `isolation` (default serializable), retried from the start on 40001/40P01. */
  transaction<T>(fn: (sql: Sql) => Promise<T>, isolation?: Isolation): Promise<T>;
  /**
   * Subscribes to `channel` (LISTEN on one dedicated connection, shared by every
   * subscription of this engine). The returned function unsubscribes.
   */
  listen(channel: string, onNotify: ((payload: string) => void) | Listener): Promise<() => Promise<void>>;
  /** NOTIFY `channel` with `payload` (delivered when the surrounding transaction commits, if any). */
  notify(channel: string, payload?: string, sql?: Sql): Promise<void>;
  close(): Promise<void>;
}

/** PostgreSQL's "try again" errors: the transaction did nothing and can run again as is. */
const RETRYABLE = new Set(["40001", "40P01"]);

/** The URL with its password replaced by `***`, for logs and `--print-config`. */
export function redactDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    for (const key of [...u.searchParams.keys()]) if (/pass/i.test(key)) u.searchParams.set(key, "***");
    return u.toString();
  } catch {
    return "postgres://***";
  }
}

/** True for the URLs this engine opens (postgres:// and postgresql://). */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

function unavailable(url: string, cause: unknown): SluiceError {
  const message = cause instanceof Error ? cause.message : String(cause);
  return new SluiceError("STORE_UNAVAILABLE", `the PostgreSQL database at ${redactDatabaseUrl(url)} cannot be reached: ${message}`, {}, { cause });
}

/**
 * A client out of the pool with `onError` listening from the moment the pool hands it over.
 * Not `await pool.connect()`: the pool can hand a client over while its socket's bytes are
 * being parsed (another query's end released it), and a "terminating connection" message
 * right behind in the same bytes was emitted before the awaiting code could listen.
 */
function checkOut(pool: pg.Pool, onError: (err: Error) => void): Promise<pg.PoolClient> {
  return new Promise((resolve, reject) => {
    pool.connect((err, client) => {
      if (err || !client) return reject(err ?? new Error("the pool gave no client"));
      client.on("error", onError);
      resolve(client);
    });
  });
}

/**
 * A failure that ended the connection rather than the statement: no SQLSTATE (the socket
 * closed), a connection exception (class 08) or an operator intervention (57P, e.g. a
 * terminated backend). On COMMIT it leaves the transaction's fate unknown to the client.
 */
function lostConnection(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code !== "string" || code.startsWith("08") || code.startsWith("57P");
}

function commitUnknown(url: string, cause: unknown): SluiceError {
  return new SluiceError("STORE_COMMIT_UNKNOWN", `the connection to the PostgreSQL database at ${redactDatabaseUrl(url)} was lost while it committed: the change may or may not be stored; read it back before retrying`, {}, { cause });
}

/** Opens a pool on `url` and checks it answers; STORE_UNAVAILABLE when it does not. */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<PostgresEngine> {
  if (!isPostgresUrl(url)) throw new SluiceError("CONFIG_INVALID", `database URL must start with postgres:// or postgresql:// (got ${redactDatabaseUrl(url)})`);
  // A database that stops answering fails a store call after connectTimeoutMs instead of holding it forever.
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10, application_name: options.applicationName ?? "sluice", connectionTimeoutMillis: options.connectTimeoutMs ?? 5000, keepAlive: true });
  // An idle client's error (the server restarted) must not crash the process; the next query reconnects.
  pool.on("error", () => {});
  try {
    await pool.query("SELECT 1");
  } catch (e) {
    await pool.end().catch(() => {});
    throw unavailable(url, e);
  }
  const retries = options.retries ?? 20;
  const listener = new NotificationClient(url, options.applicationName ?? "sluice");

  const engine: PostgresEngine = {
    url,
    query: (text, values, name) => (name === undefined ? pool.query(text, values as unknown[]) : pool.query({ name, text, values: values as unknown[] })),
    async transaction(fn, isolation = "serializable") {
      for (let attempt = 0; ; attempt++) {
        let broken = false;
        // A checked-out client has no listener of the pool's: a connection the server ends
        // while it is out (a restart, a failover, an operator) would be an uncaught 'error'
        // that ends the process. The statement in flight rejects; the client is discarded.
        const onError = (): void => { broken = true; };
        const client = await checkOut(pool, onError);
        try {
          await client.query(`BEGIN ISOLATION LEVEL ${isolation.toUpperCase()}`);
          const out = await fn({ query: (text, values) => client.query(text, values as unknown[]) });
          try {
            await client.query("COMMIT");
          } catch (e) {
            if (!lostConnection(e)) throw e;
            broken = true;
            throw commitUnknown(url, e);
          }
          return out;
        } catch (e) {
          if (e instanceof SluiceError && e.code === "STORE_COMMIT_UNKNOWN") throw e;
          await client.query("ROLLBACK").catch(() => { broken = true; });
          const code = (e as { code?: string }).code;
          if (code && RETRYABLE.has(code) && attempt < retries) {
            // Spread the competitors out: two retrying at the same instant abort each other again.
            await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 ** attempt)));
            continue;
          }
          throw e;
        } finally {
          client.removeListener("error", onError);
          client.release(broken);
        }
      }
    },
    listen: (channel, handler) => listener.subscribe(channel, typeof handler === "function" ? { onNotify: handler } : handler),
    async notify(channel, payload = "", sql) {
      await (sql ?? engine).query("SELECT pg_notify($1, $2)", [channel, payload]);
    },
    async close() {
      await listener.close();
      await pool.end();
    },
  };
  return engine;
}

/**
 * One connection for every LISTEN of an engine. When it drops, it reconnects with a
 * growing pause (up to 1 s), LISTENs again on every channel and tells each subscriber,
 * who re-reads what it may have missed.
 */
class NotificationClient {
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private readonly subscribers = new Map<string, Set<Listener>>();
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(private readonly url: string, private readonly applicationName: string) {}

  async subscribe(channel: string, listener: Listener): Promise<() => Promise<void>> {
    if (this.closed) throw new SluiceError("STORE_UNAVAILABLE", "the PostgreSQL engine is closed");
    let set = this.subscribers.get(channel);
    const first = !set;
    if (!set) this.subscribers.set(channel, (set = new Set()));
    set.add(listener);
    const client = await this.connected();
    if (first) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    return async () => {
      const s = this.subscribers.get(channel);
      if (!s?.delete(listener) || s.size > 0) return;
      this.subscribers.delete(channel);
      await this.client?.query(`UNLISTEN ${pg.escapeIdentifier(channel)}`).catch(() => {});
    };
  }

  private connected(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => { this.connecting = undefined; });
    return this.connecting;
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.url, application_name: `${this.applicationName}:listen`, keepAlive: true, connectionTimeoutMillis: 5000 });
    client.on("notification", (n) => {
      for (const l of this.subscribers.get(n.channel) ?? []) l.onNotify(n.payload ?? "");
    });
    client.on("error", () => this.lost(client));
    client.on("end", () => this.lost(client));
    try {
      await client.connect();
      for (const channel of this.subscribers.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (e) {
      client.removeAllListeners("end");
      await client.end().catch(() => {});
      throw unavailable(this.url, e);
    }
    this.client = client;
    return client;
  }

  private lost(client: pg.Client, attempt = 0): void {
    if (this.client !== client && attempt === 0) return;
    this.client = undefined;
    if (this.closed) return;
    this.retryTimer = setTimeout(() => {
      this.connected().then(
        () => { for (const set of this.subscribers.values()) for (const l of set) l.onReconnect?.(); },
        () => this.lost(client, attempt + 1),
      );
    }, Math.min(1000, 50 * 2 ** attempt));
    this.retryTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => {});
  }
}

/** The engine as the one migration runner's target: everything pending under MIGRATION_LOCK. */
export function postgresMigrationTarget(db: PostgresEngine): MigrationTarget {
  return {
    dialect: "postgres",
    exclusive: (fn) => db.transaction(async (sql) => {
      await sql.query("SELECT pg_advisory_xact_lock($1::bigint)", [BigInt(MIGRATION_LOCK).toString()]);
      return fn(async (step) => (step.kind === "exec" ? (await sql.query(step.sql), []) : (await sql.query(step.sql, [...step.params])).rows as unknown[]));
    }, "read committed"),
  };
}

/** Runs the PostgreSQL migrations of `sets` (errors leave as STORE_UNAVAILABLE). */
export async function migratePostgres(db: PostgresEngine, sets: readonly MigrationSet[]): Promise<string[]> {
  try {
    return await runMigrations(postgresMigrationTarget(db), sets);
  } catch (e) {
    throw postgresStoreError(e, "migrating the database");
  }
}

/**
 * A PostgreSQL failure as a catalogue error, once, at a store's edge: disk or quota full
 * (class 53) is STORE_FULL, anything else the database did is STORE_UNAVAILABLE. Errors
 * that already carry a code (a contract error thrown inside a transaction) pass through.
 * The message names what failed and PostgreSQL's condition, never a value.
 */
export function postgresStoreError(err: unknown, what: string): unknown {
  if (err instanceof SluiceError) return err;
  const code = (err as { code?: unknown })?.code;
  if (typeof code === "string" && code.startsWith("53")) {
    return new SluiceError("STORE_FULL", `${what} failed: the PostgreSQL database has no room left (${code}); nothing was written`, { postgres: code }, { cause: err });
  }
  const condition = typeof code === "string" ? code : ((err as Error)?.message ?? String(err));
  return new SluiceError("STORE_UNAVAILABLE", `${what} failed: the PostgreSQL database answered ${condition}`, { postgres: typeof code === "string" ? code : null }, { cause: err });
}

/**
 * Runs one store call and maps what PostgreSQL throws to the catalogue once, at the store's
 * edge ({@link postgresStoreError}): every PostgreSQL store guards its calls with this.
 * @example await postgresGuarded("records store: claim", () => db.query(...));
 */
export async function postgresGuarded<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw postgresStoreError(err, what);
  }
}

/** BIGINT columns arrive as strings (pg keeps 64-bit exact); every one this code stores fits a double. */
export const int = (v: unknown): number => (v === null || v === undefined ? (v as never) : Number(v));

/**
 * An engine usable at once, before its pool exists: every call waits for `open` (which
 * connects and migrates). For synchronous constructors (`createHost({ database })`) whose
 * stores are async anyway. A failed open fails the calls waiting for it and is tried
 * again by the next call.
 */
export function deferredPostgres(url: string, open: () => Promise<PostgresEngine>): PostgresEngine {
  let opening: Promise<PostgresEngine> | undefined;
  let closed = false;
  const engine = (): Promise<PostgresEngine> => {
    if (closed) return Promise.reject(new SluiceError("STORE_UNAVAILABLE", `the PostgreSQL engine for ${redactDatabaseUrl(url)} is closed`));
    opening ??= open().catch((err: unknown) => { opening = undefined; throw err; });
    return opening;
  };
  // Connect now, in the background; a failure here is reported by the first call that needs the database.
  engine().catch(() => {});
  return {
    url,
    query: async (text, values) => (await engine()).query(text, values),
    transaction: async (fn, isolation) => (await engine()).transaction(fn, isolation),
    listen: async (channel, handler) => (await engine()).listen(channel, handler),
    notify: async (channel, payload, sql) => (await engine()).notify(channel, payload, sql),
    async close() {
      const pending = opening;
      closed = true;
      await (await pending?.catch(() => undefined))?.close();
    },
  };
}
