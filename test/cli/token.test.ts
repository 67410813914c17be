/**
 * One token story: `sluice serve` writes its generated token once and keeps it
 * across restarts; a second server that cannot listen changes nothing on disk and says
 * which flag to change; clients read SLUICE_TOKEN, SLUICE_TOKEN_FILE and the default file,
 * and an auth failure names where they looked.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../registry/fixtures.js";
import { sluice, spawnSluice, stop, waitFor } from "./run-cli.js";

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Every file under `dir` with the sha256 and mtime of its content (the database's own files but their names: the running server writes them). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    if (name.startsWith("sluice.db")) { out[name] = "(database)"; continue; }
    const file = path.join(dir, name);
    const st = statSync(file);
    if (st.isFile()) out[name] = `${createHash("sha256").update(readFileSync(file)).digest("hex")} ${st.mtimeMs}`;
  }
  return out;
}

describe("the API token of a local sluice serve", () => {
  it("is written once, kept across restarts, and untouched by a second server that finds the port in use", async () => {
    const work = tempDir("sluice-token-");
    const port = await freePort();
    const env = { SLUICE_PORT: String(port), SLUICE_WORKERS: "1" };
    const first = spawnSluice(["serve"], env, work);
    let token: string;
    try {
      token = /\ntoken (\S+)/.exec(await waitFor(first, /listening on[\s\S]*\ntoken \S+/))![1]!;
      const file = path.join(work, ".sluice", "data", "api-token");
      expect(readFileSync(file, "utf8").trim()).toBe(token);
      const before = snapshot(path.join(work, ".sluice", "data"));

      const second = await sluice(["serve"], env, work);
      expect(second.code, second.stderr).toBe(2);
      expect(second.stderr).toContain(`error: cannot listen on 127.0.0.1:${port}: the port is in use`);
      expect(second.stderr).toMatch(/→ pick another port with --port <port> or SLUICE_PORT/);
      expect(snapshot(path.join(work, ".sluice", "data"))).toEqual(before);

      // The running server still answers with the token the file holds.
      const listed = await sluice(["list"], { SLUICE_URL: `http://127.0.0.1:${port}` }, work);
      expect(listed.stderr).toBe("");
      expect(listed.code).toBe(0);
    } finally {
      await stop(first);
    }
    const again = spawnSluice(["serve"], env, work);
    try {
      const out = await waitFor(again, /listening on[\s\S]*\ntoken/);
      expect(out).toContain(`token in ${path.join(work, ".sluice", "data", "api-token")} (kept from an earlier start`);
      expect(out).not.toContain(token);
      expect(readFileSync(path.join(work, ".sluice", "data", "api-token"), "utf8").trim()).toBe(token);
    } finally {
      await stop(again);
    }
    const rotated = await sluice(["token", "rotate"], {}, work);
    expect(rotated.code, rotated.stderr).toBe(0);
    const fresh = readFileSync(path.join(work, ".sluice", "data", "api-token"), "utf8").trim();
    expect(fresh).not.toBe(token);
    expect(fresh).toHaveLength(43);
    expect(statSync(path.join(work, ".sluice", "data", "api-token")).mode & 0o777).toBe(0o600);
  }, 90_000);

  it("clients read SLUICE_TOKEN_FILE and the default file in a parent folder, and an auth failure names where they looked", async () => {
    const work = tempDir("sluice-token-");
    const port = await freePort();
    const child = spawnSluice(["serve"], { SLUICE_PORT: String(port), SLUICE_WORKERS: "1" }, work);
    try {
      const token = /\ntoken (\S+)/.exec(await waitFor(child, /listening on[\s\S]*\ntoken \S+/))![1]!;
      const url = `http://127.0.0.1:${port}`;
      const sub = path.join(work, ".."); // a folder with no .sluice above it that holds this token
      const nested = tempDir("sluice-token-nested-");
      const inSub = await sluice(["list"], { SLUICE_URL: url }, path.join(work, ".sluice"));
      expect(inSub.code, inSub.stderr).toBe(0);

      const tokenFile = path.join(nested, "token.txt");
      writeFileSync(tokenFile, `${token}\n`);
      const fromEnvFile = await sluice(["list"], { SLUICE_URL: url, SLUICE_TOKEN_FILE: tokenFile }, nested);
      expect(fromEnvFile.code, fromEnvFile.stderr).toBe(0);

      const none = await sluice(["list"], { SLUICE_URL: url }, nested);
      expect(none.code).toBe(3);
      expect(none.stderr).toContain(`error UNAUTHORIZED: missing bearer token`);
      expect(none.stderr).toContain(`no token found: looked in SLUICE_TOKEN, SLUICE_TOKEN_FILE, ${path.join(nested, ".sluice", "data", "api-token")}`);
      expect(none.stderr).toMatch(/→ set SLUICE_TOKEN or SLUICE_TOKEN_FILE/);
      // --token is what the help discourages (visible in the process list): never the advice.
      expect(none.stderr).not.toMatch(/--token\b(?!-file)/);

      const wrongFile = path.join(nested, "wrong.txt");
      writeFileSync(wrongFile, `${"x".repeat(40)}\n`);
      const wrong = await sluice(["list"], { SLUICE_URL: url, SLUICE_TOKEN_FILE: wrongFile }, sub);
      expect(wrong.stderr).toContain(`error UNAUTHORIZED: wrong bearer token (unknown or revoked) (sent the token from SLUICE_TOKEN_FILE ${wrongFile})`);
    } finally {
      await stop(child);
    }
  }, 90_000);

  it("serve --help names each environment variable once", async () => {
    const help = await sluice(["serve", "--help"]);
    expect(help.code).toBe(0);
    for (const name of ["SLUICE_PORT", "SLUICE_TOKEN_FILE", "SLUICE_DATA_DIR"]) {
      expect(help.stdout.split(new RegExp(`\\b${name}\\b`)).length - 1, name).toBe(1);
    }
  });
});
