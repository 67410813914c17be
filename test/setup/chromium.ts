/**
 * Global set-up of the browser project: the console's browser tests drive Debian's chromium
 * (no browser download). A fresh Debian machine gets it installed here, so the README's test
 * command needs nothing installed by hand; a machine where apt-get cannot install it fails
 * the run with a message saying what to install, never skips the browser tests. Only the
 * browser project runs this, so a unit or integration run never waits on apt-get.
 */
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export default function setup(): void {
  if (existsSync(CHROMIUM)) return;
  const root = process.getuid?.() === 0;
  const apt = (args: string[]) => spawnSync(root ? "apt-get" : "sudo", root ? args : ["-n", "apt-get", ...args], {
    stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  console.log(`[browser] ${CHROMIUM} is missing: installing Debian's chromium with apt-get`);
  const ok = apt(["update", "-qq"]).status === 0 && apt(["install", "-y", "-qq", "chromium"]).status === 0;
  if (!ok || !existsSync(CHROMIUM)) {
    throw new Error(`the console's browser tests need Debian's chromium at ${CHROMIUM}: run \`apt-get install -y chromium\` as root (or set CHROMIUM_PATH)`);
  }
}
