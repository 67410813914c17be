/** An author's loop without version bumps: dev's edits live on its server, deploy waiting for dev, binding set, Git import, and a CLI that fails clearly. */
import { execFile, execFileSync } from "node:child_process";
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../registry/fixtures.js";
import { MAIN, serve, sluice, spawnSluice, stop, TOKEN, waitFor, type Server } from "./run-cli.js";

let scaffold = "";
let wasm = "";
const servers: Server[] = [];

beforeAll(async () => {
  scaffold = path.join(tempDir("sluice-loop-"), "my-hook");
  expect((await sluice(["new", "my-hook", "--dir", scaffold])).code).toBe(0);
  const built = await sluice(["build", scaffold, "--json"]);
  expect(built.code).toBe(0);
  wasm = (JSON.parse(built.stdout) as { file: string }).file;
}, 120_000);

afterAll(async () => {
  for (const s of servers) await s.close();
});

async function server(): Promise<Server> {
  const s = await serve(tempDir());
  servers.push(s);
  return s;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, "127.0.0.1", () => { const { port } = srv.address() as { port: number }; srv.close(() => resolve(port)); });
  });
}

/** A copy of the built scaffold to change. */
function plugin(): string {
  const dir = path.join(tempDir("sluice-loop-"), "my-hook");
  cpSync(scaffold, dir, { recursive: true });
  return dir;
}

describe("sluice dev makes each edit live on its own server", () => {
  it("after an edit, sluice call runs the rebuilt code as a dev revision of the same version, with no version bump", async () => {
    const dir = plugin();
    const port = await freePort();
    const env = { SLUICE_PORT: String(port), SLUICE_URL: `http://127.0.0.1:${port}`, SLUICE_WORKERS: "1" };
    const dev = spawnSluice(["dev"], env, dir);
    try {
      await waitFor(dev, /results in \d+ ms; watching/);
      const deployed = await sluice(["deploy"], env, dir);
      expect(deployed.code, deployed.stderr).toBe(0);
      const before = await sluice(["call", "tool.before", "--args", '{"limit":5000}'], env, dir);
      expect(before.stdout).toContain("/limit: 5000 → 100");

      const live = waitFor(dev, /live: my-hook@0\.1\.0\+dev\.[0-9a-f]{12} \(my-hook-tool-before\) in revision 2/);
      const source = path.join(dir, "assembly", "index.ts");
      writeFileSync(source, readFileSync(source, "utf8").replace("Value.int(max)", "Value.int(max - 1)"));
      await live;
      const after = await sluice(["call", "tool.before", "--args", '{"limit":5000}'], env, dir);
      expect(after.code, after.stderr).toBe(0);
      expect(after.stdout).toContain("/limit: 5000 → 99");
      expect(after.stdout).toMatch(/hook my-hook-tool-before \(my-hook@0\.1\.0\+dev\.[0-9a-f]{12}\) at tool\.before: patch_input/);

      // The same version deployed again with the changed code (its old sample now fails) is a dev revision here too, not VERSION_CONFLICT.
      const again = await sluice(["deploy", "--force"], env, dir);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/my-hook@0\.1\.0\+dev\.[0-9a-f]{12}/);
    } finally {
      await stop(dev);
    }
  }, 240_000);

  it("a server that is not dev's refuses a dev revision, naming the version", async () => {
    const s = await server();
    const dir = plugin();
    const manifest = path.join(dir, "hook.yaml");
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace("version: 0.1.0", "version: 0.1.0+dev.0123456789ab"));
    const r = await sluice(["upload", dir, "--module", wasm], s.env);
    expect(r.code).toBe(3);
    expect(r.stderr.split("\n")[0]).toBe("error MANIFEST_INVALID: hook.yaml: version 0.1.0+dev.0123456789ab is a dev revision, which only the server `sluice dev` runs accepts; deploy a release version");
  });
});

describe("sluice deploy checks the server and the token first", () => {
  it("waits for a server that is starting and for the token it writes, then deploys", async () => {
    const dir = plugin();
    const port = await freePort();
    const env = { SLUICE_PORT: String(port), SLUICE_URL: `http://127.0.0.1:${port}`, SLUICE_WORKERS: "1" };
    // Deploy first, the server after it, as `sluice dev & sluice deploy` race: no token file exists yet.
    const deploying = sluice(["deploy", "--module", wasm], env, dir);
    const serving = spawnSluice(["serve"], env, dir);
    try {
      const r = await deploying;
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^published revision 1 \(1 binding\(s\)\); active revision: 1$/m);
    } finally {
      await stop(serving);
    }
  }, 120_000);

  it("refuses a wrong token before it builds anything", async () => {
    const s = await server();
    const dir = plugin();
    rmSync(path.join(dir, "build"), { recursive: true, force: true });
    const r = await sluice(["deploy", dir], { ...s.env, SLUICE_TOKEN: `${TOKEN}-wrong` });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^error UNAUTHORIZED:/);
    expect(existsSync(path.join(dir, "build"))).toBe(false);
  });
});

describe("sluice binding set", () => {
  it("updates the fields given and keeps the others; bind on an existing id points to it", async () => {
    const s = await server();
    expect((await sluice(["upload", scaffold, "--module", wasm], s.env)).code).toBe(0);
    expect((await sluice(["bind", "my-hook@0.1.0", "--point", "tool.before", "--config", '{"max_limit": 10}', "--tool-ids", "orders.search"], s.env)).code).toBe(0);
    const conflict = await sluice(["bind", "my-hook@0.1.0", "--point", "tool.before"], s.env);
    expect(conflict.code).toBe(3);
    expect(conflict.stderr).toContain("→ change it with `sluice binding set <id> …`");
    const set = await sluice(["binding", "set", "my-hook-tool-before", "--priority", "5", "--disabled"], s.env);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toBe("updated my-hook-tool-before (priority, enabled): my-hook@0.1.0 at tool.before (position 0); run `sluice publish --activate` to release it\n");
    const { binding } = await s.registry.getBinding("my-hook-tool-before").then((b) => ({ binding: b }));
    expect(binding).toMatchObject({ priority: 5, enabled: false, config: { max_limit: 10 }, match: { tool_ids: ["orders.search"] } });
    const missing = await sluice(["binding", "set", "nope", "--priority", "1"], s.env);
    expect(missing.code).toBe(4);
  });
});

describe("sluice deploy --git", () => {
  it("builds and deploys the package at a commit of a local repository, and the version records where it came from", async () => {
    const repo = tempDir("sluice-git-");
    const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@example.com", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@example.com" } }).trim();
    git("init", "--quiet", "--initial-branch", "main");
    cpSync(scaffold, path.join(repo, "hooks", "my-hook"), { recursive: true, filter: (f) => !f.includes(`${path.sep}build`) && !f.includes(".sluice") });
    git("add", "-A");
    git("commit", "--quiet", "-m", "my-hook 0.1.0");
    git("tag", "v0.1.0");
    const tagged = git("rev-parse", "HEAD");
    // A later commit on the branch: the tag must still build the first one.
    const manifest = path.join(repo, "hooks", "my-hook", "hook.yaml");
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace("version: 0.1.0", "version: 0.2.0"));
    git("commit", "--quiet", "-am", "0.2.0");

    const s = await server();
    const r = await sluice(["deploy", "--git", repo, "--ref", "v0.1.0", "--path", "hooks/my-hook"], s.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`from ${repo} at ${tagged} (hooks/my-hook)`);
    expect((await s.registry.getPlugin("my-hook", "0.1.0")).source).toEqual({ repository: repo, commit: tagged, ref: "v0.1.0", path: "hooks/my-hook" });
    const listed = await sluice(["list", "plugins"], s.env);
    expect(listed.stdout).toContain(`my-hook@0.1.0  sha256 `);
    expect(listed.stdout).toContain(`  from ${repo} at ${tagged.slice(0, 12)} (hooks/my-hook)`);
    const json = JSON.parse((await sluice(["list", "plugins", "--json"], s.env)).stdout) as { items: { source?: unknown }[] };
    expect(json.items[0]!.source).toEqual({ repository: repo, commit: tagged, ref: "v0.1.0", path: "hooks/my-hook" });

    const head = await sluice(["deploy", "--git", repo, "--path", "hooks/my-hook"], s.env);
    expect(head.code, head.stderr).toBe(0);
    expect(head.stdout).toContain("uploaded my-hook@0.2.0");
    const unknown = await sluice(["deploy", "--git", repo, "--ref", "no-such-branch"], s.env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.split("\n")[0]).toBe("error: no commit, tag or branch no-such-branch in the repository");
  }, 180_000);
});

describe("sluice list and call say what they mean", () => {
  it("list labels the order mode of each release", async () => {
    const s = await server();
    expect((await sluice(["deploy", scaffold, "--module", wasm], s.env)).code).toBe(0);
    const r = await sluice(["list", "releases"], s.env);
    expect(r.stdout).toMatch(/^ {2}revision 1 {2}1 binding\(s\) {2}order mode staged {2}/m);
  });

  it("call refuses an unknown point with the closest one, and never runs another point's hooks", async () => {
    const s = await server();
    const r = await sluice(["call", "tool.befor", "--args", "{}"], s.env);
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toBe('error: unknown point "tool.befor"; did you mean tool.before?');
    expect(r.stdout).toBe("");
  });

  it("a closed pipe ends the output quietly", async () => {
    const s = await server();
    // Asynchronous: the server answering sluice runs in this process.
    const r = await new Promise<{ stdout: string; stderr: string }>((resolve) => {
      execFile("bash", ["-c", `node ${JSON.stringify(MAIN)} call tool.before --args '{}' | true; echo "exit \${PIPESTATUS[0]}"`], { env: { ...process.env, ...s.env } }, (_err, stdout, stderr) => resolve({ stdout, stderr }));
    });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("exit 0\n");
  });
});
