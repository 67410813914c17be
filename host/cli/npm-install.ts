/** `npm install` in a plugin folder, as `sluice new` and `sluice deploy --git` run it. */
import { spawn } from "node:child_process";

/**
 * `npm install` in `dir` (from the cache when it can: --prefer-offline). npm's variables
 * from an `npx` or `npm run` around this process are dropped, so the child installs into
 * `dir`, not the project that ran sluice. Resolves with why it failed, or undefined.
 */
export function npmInstall(dir: string): Promise<string | undefined> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_(package_|lifecycle_|command$|config_local_prefix$|config_prefix$|config_global$)/.test(k)));
  return new Promise((resolve) => {
    const child = spawn(process.platform === "win32" ? "npm.cmd" : "npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel", "error"], { cwd: dir, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => { stderr += d; });
    child.once("error", (err) => resolve(err.message));
    child.once("exit", (code) => resolve(code === 0 ? undefined : `exit ${code}: ${stderr.trim().split("\n").slice(-3).join(" ")}`));
  });
}
