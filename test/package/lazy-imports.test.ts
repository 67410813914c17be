/**
 * `import "sluice"` in a service that only runs hooks must not load the authors' toolchain,
 * SQLite, Ajv or prom-client: each loads when first used. A fresh Node process
 * logs every module its loaders resolved (ESM through a resolve hook, CommonJS from
 * require's cache), so the test sees what an import really pulled in.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const register = fileURLToPath(new URL("./load-log/register.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "sluice-load-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The packages under node_modules a fresh process loaded while running `script`. */
function packagesLoadedBy(script: string): Set<string> {
  return packagesLoadedByProcess(["--input-type=module", "-e", script]);
}

/** The packages under node_modules a fresh `node <args>` loaded. */
function packagesLoadedByProcess(args: readonly string[]): Set<string> {
  const log = join(dir, `${Math.random().toString(36).slice(2)}.log`);
  execFileSync(process.execPath, ["--import", register, ...args], { cwd: root, env: { ...process.env, SLUICE_LOAD_LOG: log }, stdio: ["ignore", "ignore", "inherit"] });
  const names = new Set<string>();
  for (const line of readFileSync(log, "utf8").split("\n")) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(line);
    if (m) names.add(m[1]!);
    // binaryen ships inside this package (build/vendor), not as a dependency.
    if (line.includes("/build/vendor/binaryen/")) names.add("binaryen");
  }
  return names;
}

// What only authors (compilers), stores (SQLite) or particular features (schemas, metrics, fuel) need.
const HEAVY = [
  "assemblyscript", "@bytecodealliance/jco", "@bytecodealliance/componentize-js", "@bytecodealliance/preview2-shim",
  "oxc-minify", "binaryen", "better-sqlite3", "prom-client", "ajv", "ajv-formats", "fastify", "yaml", "typescript", "piscina",
];

describe("import \"sluice\" loads only what running hooks needs", () => {
  for (const entry of ["sluice", "sluice/abi", "sluice/events"]) {
    it(`import "${entry}" loads none of the toolchain, SQLite, Ajv or prom-client`, () => {
      const loaded = packagesLoadedBy(`await import(${JSON.stringify(entry)});`);
      expect(HEAVY.filter((p) => loaded.has(p))).toEqual([]);
    });
  }

  it("a module is loaded when its feature is first used (the log does see lazy loads)", () => {
    const loaded = packagesLoadedBy(`
      const s = await import("sluice");
      s.openSqliteRecords(":memory:").close?.();
      s.metricsFor();
      s.validateEvent({});
      await s.createHost({ workers: 1 }).close();`);
    for (const p of ["better-sqlite3", "prom-client", "ajv", "ajv-formats", "piscina"]) expect(loaded, p).toContain(p);
    expect(loaded).not.toContain("assemblyscript");
  });
});

describe("the sluice CLI loads only the command it runs", () => {
  /** The packages a `sluice ...args` process loaded. */
  const packagesLoadedByCli = (args: readonly string[]) => packagesLoadedByProcess([join(root, "dist/host/cli/main.js"), ...args]);
  const SERVER_SIDE = ["fastify", "pg", "yaml", "ajv", "piscina", "better-sqlite3", "assemblyscript", "pino"];

  for (const args of [["--version"], ["--help"], ["call", "--help"], ["keys", "list", "--help"]]) {
    it(`sluice ${args.join(" ")} loads no server, store, schema or compiler package`, () => {
      expect(SERVER_SIDE.filter((p) => packagesLoadedByCli(args).has(p))).toEqual([]);
    });
  }

  it("a command's own dependencies load when it runs (the log sees them)", () => {
    expect(packagesLoadedByCli(["serve", "--print-config"])).toContain("pg");
  });
});
