/**
 * The package as users install it, for the bench's `sluice serve` scenarios: this checkout's
 * build packed with `npm pack` and installed into an empty folder from the local npm cache
 * (as test/package/tarball.test.ts does), once per bench process. Install scripts are
 * skipped and better-sqlite3's native binding (same version, this machine) is copied from the
 * checkout: compiling SQLite takes minutes and would measure nothing of Sluice.
 * SLUICE_BENCH_SERVE=checkout runs the checkout's dist/ instead, for a quick profile; the
 * results then say so.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./systems.js";

export interface ServeBuild {
  /** The `sluice` CLI's entry file to run with node. */
  main: string;
  /** Where it runs: the consumer project's folder, or the checkout. */
  cwd: string;
  /** What the results call this build. */
  source: "tarball installed in an empty folder" | "checkout dist/ (SLUICE_BENCH_SERVE=checkout)";
}

let installed: ServeBuild | undefined;

export function serveBuild(): ServeBuild {
  if (process.env.SLUICE_BENCH_SERVE === "checkout") return { main: join(repoRoot(), "dist/host/cli/main.js"), cwd: repoRoot(), source: "checkout dist/ (SLUICE_BENCH_SERVE=checkout)" };
  installed ??= install();
  return installed;
}

function install(): ServeBuild {
  const root = repoRoot();
  const work = mkdtempSync(join(tmpdir(), "sluice-bench-install-"));
  process.once("exit", () => rmSync(work, { recursive: true, force: true }));
  // npm's lifecycle variables (set under `npm run bench`) would point the child npm at this checkout.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("npm_") || k === "npm_config_cache"));
  const packed = JSON.parse(execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], { cwd: root, env, encoding: "utf8" })) as { filename: string }[];
  const project = join(work, "consumer");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "bench-consumer", version: "1.0.0", private: true, type: "module" }));
  execFileSync("npm", ["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", join(work, packed[0]!.filename)], { cwd: project, env, stdio: ["ignore", "ignore", "pipe"] });
  const binding = "node_modules/better-sqlite3/build/Release/better_sqlite3.node";
  mkdirSync(join(project, binding, ".."), { recursive: true });
  copyFileSync(join(root, binding), join(project, binding));
  return { main: join(project, "node_modules/sluice/dist/host/cli/main.js"), cwd: project, source: "tarball installed in an empty folder" };
}
