/**
 * A hook package at a commit of a Git repository (`sluice deploy --git`): cloned with the
 * machine's `git` into a temporary folder (so any URL git reaches works, and a local path),
 * the ref resolved to its full commit id and checked out.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { PluginSource } from "../registry/records.js";
import { EXIT } from "./exit-codes.js";
import { CliError } from "./output.js";

/** A checkout: the package's folder in it, what to record, and how to remove it. */
export interface GitCheckout {
  dir: string;
  source: PluginSource;
  remove(): Promise<void>;
}

function git(args: readonly string[], cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // No prompt for credentials: a repository that needs them fails with git's own message.
    execFile("git", args, { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: "0" }, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(Object.assign(err, { stderr: String(stderr).trim() }));
      else resolve(String(stdout).trim());
    });
  });
}

/** Clones `repository`, checks out `ref` (a commit, tag or branch; default its default branch) and finds `subdir`. */
export async function checkoutGit(repository: string, options: { ref?: string; path?: string } = {}): Promise<GitCheckout> {
  // A local path is recorded as an absolute one: a relative path means nothing to a server.
  const recorded = existsSync(repository) ? path.resolve(repository) : repository;
  const work = await mkdtemp(path.join(tmpdir(), "sluice-git-"));
  const remove = () => rm(work, { recursive: true, force: true });
  try {
    const clone = path.join(work, "repo");
    try {
      await git(["clone", "--quiet", "--no-checkout", "--", recorded, clone]);
    } catch (err) {
      throw new CliError(`cannot clone ${repository}: ${(err as { stderr?: string }).stderr || (err as Error).message}`, "give a path or a URL git can reach (git clone works with it)", EXIT.usage);
    }
    const commit = await resolveRef(clone, options.ref);
    await git(["checkout", "--quiet", "--detach", commit], clone);
    const dir = path.resolve(clone, options.path ?? ".");
    if (path.relative(clone, dir).startsWith("..")) throw new CliError(`--path ${options.path} leads outside the repository`);
    if (!existsSync(path.join(dir, "hook.yaml"))) {
      throw new CliError(`no hook.yaml in ${options.path ?? "the root of"} ${repository} at ${commit.slice(0, 12)}`, "name the package's folder with --path <dir>", EXIT.usage);
    }
    return {
      dir, remove,
      source: { repository: recorded, commit, ...(options.ref !== undefined ? { ref: options.ref } : {}), ...(options.path !== undefined && path.relative(clone, dir) !== "" ? { path: path.relative(clone, dir).split(path.sep).join("/") } : {}) },
    };
  } catch (err) {
    await remove();
    throw err;
  }
}

/** The full commit id `ref` names in `clone`: a commit, a tag, or a branch of the origin; the default branch without one. */
async function resolveRef(clone: string, ref: string | undefined): Promise<string> {
  const candidates = ref === undefined ? ["HEAD"] : ref.startsWith("-") ? [] : [ref, `origin/${ref}`, `refs/tags/${ref}`];
  for (const candidate of candidates) {
    try {
      return await git(["rev-parse", "--verify", "--quiet", `${candidate}^{commit}`], clone);
    } catch { /* the next reading of the ref */ }
  }
  throw new CliError(`${ref === undefined ? "the repository has no commit" : `no commit, tag or branch ${ref}`} in the repository`, ref === undefined ? undefined : "`git ls-remote <repository>` lists its branches and tags", EXIT.usage);
}
