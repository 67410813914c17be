/**
 * The coding-agent CLIs the agent tests run as real clients, pinned in their own package
 * (test/agents/package.json and its lockfile), installed here with `npm ci` when missing,
 * never by the root `npm ci`; and Debian's iproute2 (`ip`), which brings up loopback in the
 * network namespace each agent runs in. A machine that cannot install either fails the run
 * saying what to install, never skips the agent tests.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = fileURLToPath(new URL("../agents/", import.meta.url));
const BINS = ["claude", "codex", "gemini", "copilot"];

function hasIp(): boolean {
  return spawnSync("sh", ["-c", "command -v ip"], { stdio: "ignore" }).status === 0;
}

export default function setup(): void {
  if (!BINS.every((b) => existsSync(join(pkg, "node_modules/.bin", b)))) {
    console.log("[agents] installing the pinned coding-agent CLIs: npm ci --prefix test/agents");
    const ci = spawnSync("npm", ["ci", "--prefix", pkg, "--no-audit", "--no-fund"], { stdio: "inherit" });
    if (ci.status !== 0) throw new Error("the agent tests need their CLIs: `npm ci --prefix test/agents` failed (see above)");
  }
  if (!hasIp()) {
    const root = process.getuid?.() === 0;
    const apt = (args: string[]) => spawnSync(root ? "apt-get" : "sudo", root ? args : ["-n", "apt-get", ...args], {
      stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    console.log("[agents] `ip` is missing: installing Debian's iproute2 with apt-get");
    const ok = apt(["update", "-qq"]).status === 0 && apt(["install", "-y", "-qq", "iproute2"]).status === 0;
    if (!ok || !hasIp()) throw new Error("the agent tests bring up loopback in a network namespace with `ip`: run `apt-get install -y iproute2` as root");
  }
}
