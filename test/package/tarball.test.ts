/**
 * The package as a consumer gets it: `npm pack`, installed into an empty project
 * from the local npm cache (`--prefer-offline`: `npm ci` filled it with every tarball; the
 * registry is asked only for metadata the cache lacks), then the author commands run
 * through `npx`. The
 * runtime install has no compiler; `sluice build` says exactly what to install; once it
 * is installed, new, build, test and demo work from the tarball alone.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStubUpstream } from "../gateway/upstream-stub.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string; peerDependencies: Record<string, string> };
const work = mkdtempSync(join(tmpdir(), "sluice-tarball-"));
const project = join(work, "consumer");
// npm's own lifecycle variables (set when the suite runs under `npm test`) would point the
// child npm at this repository; the cache location is kept, so the install stays offline.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("npm_") || k === "npm_config_cache"));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const npx = process.platform === "win32" ? "npx.cmd" : "npx";

function run(cmd: string, args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { cwd: project, env, encoding: "utf8", timeout: 90_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
const sluice = (...args: string[]) => run(npx, ["--no", "--", "sluice", ...args]);
/** Installs from the cache; returns npm's warnings (its stderr). */
const installFromCache = (...args: string[]): string => {
  const r = run(npm, ["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", ...args]);
  if (r.code !== 0) throw new Error(`npm install ${args.join(" ")} failed:\n${r.stderr}`);
  return r.stderr;
};
/** npm's lines that say a package needs another Node than this one (Sluice runs on Node 20). */
const engineWarnings = (warnings: string): string[] => warnings.split("\n").filter((line) => line.includes("EBADENGINE"));

let files: string[] = [];
let installWarnings = "";

beforeAll(() => {
  const packed = JSON.parse(execFileSync(npm, ["pack", "--ignore-scripts", "--json", "--pack-destination", work], { cwd: root, env, encoding: "utf8" })) as { filename: string; files: { path: string }[] }[];
  files = packed[0]!.files.map((f) => f.path);
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }));
  // Install scripts are skipped, and better-sqlite3's native binding (same version, this
  // machine) is copied from the repository: compiling SQLite would take minutes and tests
  // better-sqlite3, not this package.
  installWarnings = installFromCache(join(work, packed[0]!.filename));
  const binding = "node_modules/better-sqlite3/build/Release/better_sqlite3.node";
  mkdirSync(join(project, binding, ".."), { recursive: true });
  copyFileSync(join(root, binding), join(project, binding));
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the packed tarball", () => {
  it("ships the compiled host, the demo's plugin modules, the guest SDK, the ABI docs and docs/, not the tests", () => {
    expect(files).toContain("dist/host/index.js");
    expect(files).toContain("dist/host/index.d.ts");
    expect(files).toContain("dist/host/cli/main.js");
    expect(files).toContain("build/plugins/pii-redact.wasm");
    expect(files).toContain("build/console/index.html");
    expect(files).toContain("plugins/pii-redact/hook.yaml");
    expect(files).toContain("guest-sdk/assembly/index.ts");
    expect(files).toContain("abi/README.md");
    expect(files).toContain("abi/wit/sluice-hook.wit");
    // The README's links to docs/ resolve inside the installed package.
    expect(files).toContain("docs/layout.md");
    expect(files).toContain("docs/console-overview.png");
    expect(files.filter((f) => f.startsWith("test/") || f.startsWith("dist/test/") || f.startsWith("host/") || f.endsWith(".map"))).toEqual([]);
  });

  it("installs without the authors' toolchain", () => {
    for (const dev of ["assemblyscript", "@bytecodealliance/jco", "@bytecodealliance/componentize-js", "typescript", "vitest"]) {
      expect(existsSync(join(project, "node_modules", dev)), dev).toBe(false);
    }
    const r = run(process.execPath, ["--input-type=module", "-e", `const { createHost } = await import("sluice"); const h = createHost(); await h.close(); console.log("ok");`]);
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe("ok");
  });

  it("installs on Node 20 without an engine warning: no dependency asks for a newer Node", () => {
    // fastify 5 accepts light-my-request 6.8, whose cookie 2 needs Node 22; sluice's own
    // light-my-request 6.6.0 is what npm places, and fastify's ^6 is satisfied by it.
    expect(engineWarnings(installWarnings)).toEqual([]);
  });

  it("installs lean: no binaryen command-line tools, no component transpiler, at most 100 MB in all", () => {
    // binaryen's JavaScript build ships inside sluice (build/vendor/binaryen); its npm package would add 80 MB of tools.
    for (const heavy of ["binaryen", "@bytecodealliance/jco-transpile"]) expect(existsSync(join(project, "node_modules", heavy)), heavy).toBe(false);
    const du = run("du", ["-sk", join(project, "node_modules")]);
    const mb = Number(du.stdout.split("\t")[0]) / 1024;
    expect(mb).toBeLessThanOrEqual(100);
  });

  it("the installed records store writes on its writer thread: its entry ships and starts from node_modules", () => {
    const file = join(work, "records-thread.db");
    const r = run(process.execPath, ["--input-type=module", "-e", `
      const { openSqliteRecords } = await import("sluice");
      const s = openSqliteRecords(${JSON.stringify(file)}, { writerThread: "always", key: "k".repeat(32) });
      const rec = (id) => ({ operationId: id, parentOperationId: null, idempotencyKey: id, identity: {}, point: "tool.before", phase: "before", realStatus: "not_started", revision: 1, resumedRevision: null, resumes: 0, completed: [], finalInputRef: null, realResultRef: null, effectiveOutputRef: null, usage: null, providerRequestId: null, attempts: 0, shortCircuitedBy: null, outcome: null, error: null, createdAt: 1, updatedAt: 1 });
      try { await Promise.all([s.insert(rec("a")), s.insert(rec("b"))]); console.log(JSON.stringify((await s.list()).map((r) => r.operationId).sort())); }
      catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }
      await s.close();`]);
    expect(r.stdout.trim(), r.stderr).toBe('["a","b"]');
  });

  it("sluice serve from the install, gateway on: a stream through pii-redact arrives redacted, piece by piece; both servers answer their probes; SIGTERM stops it", async () => {
    const stub = await startStubUpstream();
    const token = "tarball-serve-token-0123456789abcdefghij";
    const installed = join(project, "node_modules", "sluice");
    const child = spawn(process.execPath, [join(installed, "dist/host/cli/main.js"), "serve", "--port", "0", "--gateway-port", "0"], {
      cwd: project, env: { ...env, SLUICE_DATA_DIR: join(work, "serve-data"), SLUICE_TOKEN: token, SLUICE_UPSTREAM: `${stub.url}/v1`, SLUICE_WORKERS: "1" },
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      const out = await new Promise<string>((resolve, reject) => {
        let text = "";
        child.stdout.on("data", (d: Buffer) => { text += d; if (/sluice listening on \S+/.test(text)) resolve(text); });
        child.once("exit", (code) => reject(new Error(`sluice serve exited with ${code}: ${text}`)));
      });
      const api = /sluice listening on (\S+)/.exec(out)![1]!;
      const gateway = /gateway listening on (\S+)\/v1/.exec(out)![1]!;
      const post = async (p: string, body: unknown) => {
        const res = await fetch(`${api}/api/v1${p}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });
        expect(res.status, await res.clone().text()).toBe(201);
        return res.json() as Promise<Record<string, unknown>>;
      };
      // The reference plugin as the package ships it.
      await post("/plugins", { manifest: readFileSync(join(installed, "plugins/pii-redact/hook.yaml"), "utf8"), wasm_base64: readFileSync(join(installed, "build/plugins/pii-redact.wasm")).toString("base64") });
      await post("/bindings", { id: "redact-chunks", hook_ref: "pii-redact@1.0.0", point: "model.chat.chunk", extension: "pii" });
      await post("/bindings", { id: "redact-answer", hook_ref: "pii-redact@1.0.0", point: "model.chat.after", extension: "pii" });
      await post("/releases", { activate: true });
      const { key } = await post("/gateway/keys", { space_id: "acme" }) as { key: string };
      const res = await fetch(`${gateway}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "write to bob@example.org today" }] }) });
      expect(res.status).toBe(200);
      const events = (await res.text()).split("\n\n").filter((e) => e.startsWith("data: {"));
      const pieces = events.map((e) => (JSON.parse(e.slice(6)) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? "").filter(Boolean);
      expect(pieces.join("")).toBe("You said: write to [email] today");
      expect(pieces.length).toBeGreaterThan(3);
      expect(events.join("")).not.toMatch(/bob|example\.org/);
      for (const base of [api, gateway]) for (const probe of ["/healthz", "/readyz"]) expect([probe, (await fetch(`${base}${probe}`)).status]).toEqual([probe, 200]);
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      child.kill("SIGKILL");
      await stub.close();
    }
  }, 120_000);

  it("a component plugin, without the optional transpiler installed, is TOOLCHAIN_MISSING naming the exact install command", () => {
    const component = join(root, "build/fixtures/components/abort.wasm");
    const r = run(process.execPath, ["--input-type=module", "-e", `
      import { readFileSync } from "node:fs";
      const { createHost } = await import("sluice");
      const h = createHost({ workers: 1 });
      try { await h.loadPlugin({ id: "limit-js", version: "1.0.0", wasm: new Uint8Array(readFileSync(${JSON.stringify(component)})) }); console.log("loaded"); }
      catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }
      await h.close();`]);
    const out = JSON.parse(r.stdout.trim()) as { code: string; message: string };
    expect(out.code).toBe("TOOLCHAIN_MISSING");
    expect(out.message).toContain(`npm install @bytecodealliance/jco-transpile@${pkg.peerDependencies["@bytecodealliance/jco-transpile"]}`);
  });

  it("npx sluice new, build, test and demo work from an empty project; new installs the compiler it needs, pinned exactly", () => {
    expect(sluice("--version").stdout.trim()).toBe(pkg.version);
    const created = sluice("new", "my-hook");
    expect(created.code, created.stderr).toBe(0);
    expect(existsSync(join(project, "my-hook", "hook.yaml"))).toBe(true);
    const scaffolded = JSON.parse(readFileSync(join(project, "my-hook", "package.json"), "utf8")) as { devDependencies: Record<string, string> };
    expect(scaffolded.devDependencies.assemblyscript).toBe(pkg.peerDependencies.assemblyscript);
    expect(readFileSync(join(project, "my-hook", ".gitignore"), "utf8").split("\n")).toEqual(expect.arrayContaining(["build/", "node_modules/", ".sluice/"]));
    // The consumer project itself still has no compiler: sluice finds the plugin folder's.
    expect(existsSync(join(project, "node_modules", "assemblyscript"))).toBe(false);

    const built = sluice("build", "my-hook");
    expect(built.code, built.stderr).toBe(0);
    expect(existsSync(join(project, "my-hook", "build", "my-hook.wasm"))).toBe(true);

    const tested = sluice("test", "my-hook");
    expect(tested.code, tested.stdout + tested.stderr).toBe(0);

    const demo = sluice("demo");
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toContain("Done: 4 real model calls");
  }, 180_000);

  it("a plugin without its compiler installed is TOOLCHAIN_MISSING naming the exact install command", () => {
    const created = sluice("new", "bare-hook", "--no-install");
    expect(created.code, created.stderr).toBe(0);
    const missing = sluice("build", "bare-hook");
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain("error TOOLCHAIN_MISSING:");
    const install = `npm install -D -E assemblyscript@${pkg.peerDependencies.assemblyscript}`;
    expect(missing.stderr).toContain(install);
    expect(readFileSync(join(root, "README.md"), "utf8"), "README.md shows the same command").toContain(install);
  }, 60_000);

  it("README's \"Writing a hook\" path: five commands from an empty folder to a hook seen acting, none failing, within 2 minutes", () => {
    const text = readFileSync(join(root, "README.md"), "utf8");
    const block = /\*\*From an empty folder to a hook seen acting\*\*[^\n]*\n\n```sh\n([\s\S]*?)```/.exec(text)![1]!.trim().split("\n").map((l) => l.replace(/\s+#.*$/, "").trim());
    expect(block).toEqual([
      "sluice new my-guard",
      "cd my-guard",
      "sluice dev &",
      "sluice deploy",
      `sluice call tool.before --tool orders.search --args '{"limit":5000}'`,
    ]);
    const folder = join(work, "empty");
    mkdirSync(folder);
    // The package installed as a user has it (npm install -g of the tarball): its bin on PATH.
    // The lines run as written: `sluice deploy` waits for `sluice dev &`'s server and token itself.
    const port = String(18_000 + Math.floor(Math.random() * 20_000));
    const script = [
      "set -euo pipefail",
      `trap 'kill $(jobs -p) 2>/dev/null || true' EXIT`,
      `cd ${JSON.stringify(folder)}`,
      ...block,
    ].join("\n");
    const t0 = performance.now();
    const r = spawnSync("bash", ["-c", script], { env: { ...env, PATH: `${join(project, "node_modules", ".bin")}:${env.PATH}`, SLUICE_PORT: port, SLUICE_URL: `http://127.0.0.1:${port}`, SLUICE_WORKERS: "1" }, encoding: "utf8", timeout: 170_000 });
    const seconds = (performance.now() - t0) / 1000;
    process.stdout.write(`README author path from the tarball: ${seconds.toFixed(1)} s of machine time\n`);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^published revision 1 \(1 binding\(s\)\); active revision: 1$/m);
    expect(r.stdout).toContain("patch:\n  /limit: 5000 → 100\n");
    expect(seconds).toBeLessThanOrEqual(120);
  }, 180_000);
});
