/** Runs the built CLI (`node dist/host/cli/main.js`, so `npm run build` first) against a server in this process. */
import { execFile, spawn } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startApiServer } from "../../host/api/server.js";
import { Registry } from "../../host/registry/registry.js";
import { tempDir, toolCall } from "../registry/fixtures.js";

const MAIN = fileURLToPath(new URL("../../dist/host/cli/main.js", import.meta.url));
const TOKEN = "cli-test-token-42-abcdefghijklmnopqrstu";

interface Run { code: number; stdout: string; stderr: string }

/** Runs `sluice ...args`; asynchronous, so the in-process server keeps answering. */
function sluice(args: string[], env: Record<string, string | undefined> = {}, cwd?: string): Promise<Run> {
  return new Promise((resolve) => {
    const { SLUICE_TOKEN: _t, SLUICE_URL: _u, ...base } = process.env;
    execFile(process.execPath, [MAIN, ...args], { env: { ...base, ...env }, cwd, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

function withoutToken(): NodeJS.ProcessEnv {
  const { SLUICE_TOKEN: _t, SLUICE_URL: _u, ...env } = process.env;
  return env;
}

interface Server { url: string; registry: Registry; close: () => Promise<void> }
const running: Server[] = [];
async function serve(dataDir: string): Promise<Server> {
  const registry = await Registry.open({ dataDir, hostOptions: { workers: 1 } });
  const server = await startApiServer({ registry, token: TOKEN, port: 0 });
  const s: Server = { url: server.url, registry, close: async () => { await server.close(); await registry.close(); running.splice(running.indexOf(s), 1); } };
  running.push(s);
  return s;
}
afterEach(async () => {
  for (const s of [...running]) await s.close();
});

async function limitSeen(s: Server): Promise<unknown> {
  let limit: unknown;
  await s.registry.host.tool({ spaceId: "s1" }, toolCall(500), async (args) => { limit = args.limit; return {}; });
  return limit;
}

describe("sluice CLI", () => {
  it("scaffolds, builds, tests, uploads, binds, publishes, disables, rolls back, and survives a restart", async () => {
    const work = tempDir("sluice-cli-");
    const dir = path.join(work, "my-hook");
    const ok = (r: Run) => { expect(r.stderr + r.stdout).not.toMatch(/^error/m); expect(r.code).toBe(0); return r; };

    ok(await sluice(["new", "my-hook", "--dir", dir]));
    const built = ok(await sluice(["build", dir]));
    expect(built.stdout).toMatch(/built .*my-hook\.wasm \(\d+ bytes, sha256 [0-9a-f]{64}\)/);
    // Progress lines are for a terminal; this stderr is a pipe.
    expect(built.stderr).toBe("");
    expect(existsSync(path.join(dir, "build", "my-hook.wasm"))).toBe(true);
    const tested = ok(await sluice(["test", dir, "--module", path.join(dir, "build", "my-hook.wasm")])).stdout;
    expect(tested).toMatch(/2 passed, 0 failed/);
    // Each sample shows the fuel its hook used against the budget (the scaffold's hook is far below half of it).
    expect(tested.match(/^pass .* \(\d+\.\d ms, fuel [\d,]+ of 50,000,000\)$/gm)).toHaveLength(2);
    expect(tested).not.toMatch(/warning/);

    const dataDir = path.join(work, "data");
    let s = await serve(dataDir);
    let env = { SLUICE_URL: s.url, SLUICE_TOKEN: TOKEN };
    expect(ok(await sluice(["upload", dir, "--module", path.join(dir, "build", "my-hook.wasm")], env)).stdout).toMatch(/^uploaded my-hook@0\.1\.0 sha256/m);
    const remote = ok(await sluice(["test", dir, "--remote"], env)).stdout;
    expect(remote).toMatch(/2 passed, 0 failed/);
    expect(remote.match(/^pass .* \(\d+\.\d ms, fuel [\d,]+ of 50,000,000\)$/gm)).toHaveLength(2);
    ok(await sluice(["bind", "my-hook@0.1.0", "--point", "tool.before", "--id", "lim", "--config", '{"max_limit": 100}', "--tool-ids", "orders.search"], env));
    expect(ok(await sluice(["publish", "--activate"], env)).stdout).toMatch(/published revision 1 .*active revision: 1/);
    expect(await limitSeen(s)).toBe(100);

    expect(ok(await sluice(["disable", "lim"], env)).stdout).toMatch(/disabled lim; active revision: 2/);
    expect(await limitSeen(s)).toBe(500);
    expect(ok(await sluice(["rollback"], env)).stdout).toMatch(/active revision: 1/);
    expect(await limitSeen(s)).toBe(100);

    await s.close();
    s = await serve(dataDir);
    env = { SLUICE_URL: s.url, SLUICE_TOKEN: TOKEN };
    expect(await limitSeen(s)).toBe(100);
    const listed = ok(await sluice(["list"], env)).stdout;
    expect(listed).toMatch(/my-hook@0\.1\.0/);
    expect(listed).toMatch(/0\. lim {2}my-hook@0\.1\.0 at tool\.before/);
    expect(listed).toMatch(/releases \(active revision 1\)/);
    expect(ok(await sluice(["list", "extensions"], env)).stdout).toMatch(/0\. lim {2}my-hook@0\.1\.0 {2}tool\.before \(pre\) {2}enabled/);
    expect(ok(await sluice(["activate", "2"], env)).stdout).toMatch(/active revision: 2/);
    expect(await limitSeen(s)).toBe(500);
  }, 120_000);

  it("says what went wrong and what to do, with a non-zero exit", async () => {
    const s = await serve(tempDir());
    const env = { SLUICE_URL: s.url, SLUICE_TOKEN: TOKEN };

    // In a folder without .sluice/data/api-token, so no local token file is found.
    const noToken = await sluice(["list"], { SLUICE_URL: s.url }, tempDir());
    expect(noToken.code).toBe(3);
    expect(noToken.stderr).toMatch(/error UNAUTHORIZED: missing bearer token[\s\S]*→ set SLUICE_TOKEN or SLUICE_TOKEN_FILE/);
    expect((await sluice(["list", "--token", "wrong"], { SLUICE_URL: s.url })).stderr).toMatch(/UNAUTHORIZED: wrong bearer token/);

    const unknown = await sluice(["bind", "ghost@1.0.0", "--point", "tool.before"], env);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toMatch(/PLUGIN_NOT_FOUND[\s\S]*→ upload it first/);
    expect((await sluice(["bind", "../x@1.0.0", "--point", "tool.before"], env)).stderr).toMatch(/ID_INVALID/);
    expect((await sluice(["bind", "x@1.0.0", "--point", "tool.before", "--config", "{oops"], env)).stderr).toMatch(/--config is not JSON[\s\S]*→ quote it/);

    const down = await sluice(["list"], { SLUICE_URL: "http://127.0.0.1:9", SLUICE_TOKEN: TOKEN });
    expect(down.code).toBe(5);
    expect(down.stderr).toMatch(/cannot reach[\s\S]*sluice serve/);

    const noManifest = await sluice(["build", tempDir()]);
    expect(noManifest.stderr).toMatch(/no hook\.yaml[\s\S]*sluice new/);
    expect((await sluice(["new", "Bad/Name", "--dir", path.join(tempDir(), "x")])).stderr).toMatch(/ID_INVALID/);
  }, 60_000);

  it("serve generates a token into the data folder when none is given, and local commands find it there", async () => {
    const work = tempDir("sluice-cli-");
    const child = spawn(process.execPath, [MAIN, "serve", "--port", "0", "--workers", "1"], { cwd: work, stdio: ["ignore", "pipe", "pipe"], env: withoutToken() });
    try {
      const out = await new Promise<string>((resolve, reject) => {
        let text = "";
        child.stdout.on("data", (d: Buffer) => { text += d; if (/listening on \S+[\s\S]*\ntoken \S+/.test(text)) resolve(text); });
        child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${text}`)));
      });
      const url = /listening on (\S+)/.exec(out)![1]!;
      const token = /\ntoken (\S+)/.exec(out)![1]!;
      const file = path.join(work, ".sluice", "data", "api-token");
      expect(readFileSync(file, "utf8").trim()).toBe(token);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(path.join(work, ".sluice", "data")).mode & 0o777).toBe(0o700);
      // As the README shows: no token anywhere on the command line.
      const listed = await sluice(["list"], { SLUICE_URL: url }, work);
      expect(listed.stderr).not.toMatch(/^error/m);
      expect(listed.code).toBe(0);
      const tokenFile = path.join(tempDir(), "t");
      writeFileSync(tokenFile, `${token}\n`);
      expect((await sluice(["list", "--token-file", tokenFile], { SLUICE_URL: url })).code).toBe(0);
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
  }, 60_000);

  it("refuses a token shorter than 32 characters", async () => {
    const refused = await sluice(["serve", "--port", "0", "--data-dir", tempDir()], { SLUICE_TOKEN: "too-short" });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/CONFIG_INVALID: the token from --token \/ SLUICE_TOKEN is 9 characters; use at least 32/);
  });

  it("serves the API, and refuses a network address without a token", async () => {
    const refused = await sluice(["serve", "--host", "0.0.0.0", "--port", "0", "--data-dir", tempDir()]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/CONFIG_INVALID: refusing to serve 0\.0\.0\.0 without a token/);

    const child = spawn(process.execPath, [MAIN, "serve", "--port", "0", "--data-dir", tempDir(), "--token", TOKEN, "--workers", "1"], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d: Buffer) => { out += d; const m = /listening on (\S+)/.exec(out); if (m) resolve(m[1]!); });
        child.once("exit", (code) => reject(new Error(`serve exited with ${code}`)));
      });
      const res = await fetch(`${url}/api/v1/status`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(await res.json()).toMatchObject({ active_revision: 0, plugins: 0 });
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
  }, 60_000);
});
