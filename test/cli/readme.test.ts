/**
 * The commands of README.md's "Writing a hook" and guest-sdk/README.md, run as they are
 * written, in fresh temporary folders, with the CLI installed the way the README says
 * (`npm install -g .`, here into a temporary prefix). Needs `npm run build` first.
 */
import { execFile, execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../registry/fixtures.js";
import { testDatabaseUrl } from "../helpers/postgres.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
let bin = "";

/** Every ```sh block of a markdown file, each as its lines with comments removed. */
function shBlocks(file: string): string[][] {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim().split("\n").map((l) => l.replace(/\s+#.*$/, "").trim()).filter(Boolean));
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * Runs README lines with bash in `cwd`. Each `sluice serve &` runs in the background
 * (its job's shell replaced by the server, so that the trap's kill stops the server itself); the commands after them wait until every one listens;
 * `sluice dev &` runs in the background with nothing waiting for it (`sluice deploy` waits
 * for its server and token itself); its output is printed at the end, once its first
 * results are in. `npx sluice` is the installed sluice. Nothing else is changed.
 */
function runBlock(lines: readonly string[], cwd: string, port: number, extraEnv: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const logs = tempDir("sluice-readme-logs-");
  const serves = lines.filter((l) => /^sluice serve\b/.test(l)).length;
  const devs = lines.filter((l) => /^sluice dev\b/.test(l)).length;
  const script = `set -euo pipefail
sluice() {
  if [ "$1" = serve ]; then exec sluice "$@" > ${logs}/serve-$BASHPID.out 2>> ${logs}/serve.err; fi
  if compgen -G "${logs}/serve-*.out" > /dev/null; then until [ "$(grep -l "listening on" ${logs}/serve-*.out 2>/dev/null | wc -l)" -ge ${serves} ]; do sleep 0.1; done; fi
  if [ "$1" = dev ]; then exec sluice "$@" > ${logs}/dev-$BASHPID.out 2>&1; fi
  command sluice "$@"
}
# The package is not on the registry yet: \`npx sluice\` is the sluice installed above.
npx() { if [ "$1" = sluice ]; then shift; sluice "$@"; else command npx "$@"; fi; }
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
${lines.join("\n")}
if [ ${devs} -gt 0 ]; then until grep -qs "results in" ${logs}/dev-*.out; do sleep 0.1; done; fi
cat ${logs}/dev-*.out 2>/dev/null || true
`;
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}`, SLUICE_PORT: String(port), SLUICE_URL: `http://127.0.0.1:${port}`, SLUICE_WORKERS: "1", ...extraEnv };
    delete env.SLUICE_TOKEN;
    execFile("bash", ["-c", script], { cwd, env, timeout: 240_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr: stderr + readFileSync(`${logs}/serve.err`, { encoding: "utf8", flag: "a+" }) });
    });
  });
}

beforeAll(() => {
  // The README's `npm install -g .`, into a temporary prefix instead of the machine's.
  const prefix = tempDir("sluice-prefix-");
  execFileSync("npm", ["install", "-g", ".", "--prefix", prefix, "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: ROOT, stdio: "pipe" });
  bin = path.join(prefix, "bin");
}, 120_000);

describe("README.md", () => {
  const blocks = shBlocks("README.md");

  it("has exactly the command blocks this file runs (a new command needs a test here)", () => {
    expect(blocks).toEqual([
      ["npm ci && npm start", "npm ci && npm test"],
      ["npm install -g ."],
      ["sluice new my-guard", "cd my-guard", "sluice dev &", "sluice deploy", `sluice call tool.before --tool orders.search --args '{"limit":5000}'`],
      ["sluice new my-guard && cd my-guard", "sluice build", "sluice test", "sluice serve &", "sluice upload && sluice bind my-guard@0.1.0 --point tool.before && sluice publish --activate"],
      [
        "sluice new my-guard && cd my-guard", `export SLUICE_TOKEN=$(node -p "crypto.randomBytes(32).toString('hex')")`, "sluice serve &", "sluice serve --port 8797 &",
        "sluice deploy", "sluice status --url http://127.0.0.1:8797 --expect 1",
      ],
    ]);
    // The first block is what CI runs (.ci/run: npm ci, then npm test, which includes test/demo for npm start).
  });

  it("the installed CLI is this checkout's", () => {
    const version = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).version as string;
    expect(execFileSync(path.join(bin, "sluice"), ["--version"], { encoding: "utf8" }).trim()).toBe(version);
  });

  it("gets from an empty folder to a hook seen acting with new, dev, deploy and call", async () => {
    const cwd = tempDir("sluice-readme-");
    const port = await freePort();
    const run = await runBlock(blocks[2]!, cwd, port);
    expect(run.stderr).not.toMatch(/^error/m);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^bound my-guard-tool-before: my-guard@0\.1\.0 at tool\.before$/m);
    expect(run.stdout).toMatch(/^published revision 1 \(1 binding\(s\)\); active revision: 1$/m);
    expect(run.stdout).toContain("patch:\n  /limit: 5000 → 100\n");
    expect(run.stdout).toMatch(/2 passed, 0 failed\nresults in \d+ ms/);
  }, 240_000);

  it("runs the step-by-step commands, binding the scaffold without any config", async () => {
    const cwd = tempDir("sluice-readme-");
    const port = await freePort();
    const run = await runBlock(blocks[3]!, cwd, port);
    expect(run.stderr).not.toMatch(/^error/m);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^built build\/my-guard\.wasm \(\d+ bytes, sha256 [0-9a-f]{64}\)$/m);
    expect(run.stdout).toMatch(/^2 passed, 0 failed$/m);
    expect(run.stdout).toMatch(/^bound my-guard-tool-before: my-guard@0\.1\.0 at tool\.before \(position 0\)/m);
    expect(run.stdout).toMatch(/^published revision 1 \(1 binding\(s\)\); active revision: 1$/m);
  }, 240_000);
});

// The same commands on PostgreSQL: the reader sets SLUICE_DATABASE_URL, as the README says.
describe.each([
  { engine: "SQLite", env: async (): Promise<Record<string, string>> => ({}) },
  { engine: "PostgreSQL", env: async (): Promise<Record<string, string>> => ({ SLUICE_DATABASE_URL: await testDatabaseUrl("readme") }) },
])("README.md's two hosts on one database ($engine)", ({ env }) => {
  it("a release deployed through one host is served by the other", async () => {
    const cwd = tempDir("sluice-readme-");
    const port = await freePort();
    const run = await runBlock(shBlocks("README.md")[4]!, cwd, port, await env());
    expect(run.stderr).not.toMatch(/^error/m);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^published revision 1 \(1 binding\(s\)\); active revision: 1$/m);
    expect(run.stdout).toMatch(/^serving revision 1 \(active revision in the database: 1\)$/m);
  }, 240_000);
});

describe("guest-sdk/README.md", () => {
  it("has no command block, and its whole hook builds and passes the scaffold's samples", async () => {
    expect(shBlocks("guest-sdk/README.md")).toEqual([]);
    const text = readFileSync(path.join(ROOT, "guest-sdk", "README.md"), "utf8");
    const hook = /## A whole hook\n\n```ts\n([\s\S]*?)```/.exec(text)![1]!;
    const cwd = tempDir("sluice-readme-");
    const port = await freePort();
    writeFileSync(path.join(cwd, "hook.ts"), hook);
    const run = await runBlock(["sluice new my-guard && cd my-guard", "cp ../hook.ts assembly/index.ts", "sluice test"], cwd, port);
    expect(run.stderr).not.toMatch(/^error/m);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^pass clamps a large limit \(/m);
    expect(run.stdout).toMatch(/^2 passed, 0 failed$/m);
  }, 120_000);
});
