/**
 * The management API's bearer token: given by the operator (SLUICE_TOKEN, --token-file,
 * or --token, which other local users can read in the process list), or generated when
 * none is given and written to `<data>/api-token` (0600), where local clients find it.
 * The file is written once, after the server listens (a server that fails to start changes
 * nothing), and kept across restarts; `sluice token rotate` replaces it. A
 * server never runs without one: without it any web page the operator opens could drive
 * the API through the browser (DNS rebinding, simple cross-origin POSTs).
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { SluiceError } from "../errors/sluice-error.js";
import { ensurePrivateDir } from "../storage/private-files.js";

/** Shorter tokens are refused: a token is a password nobody types, so it can be long. */
export const MIN_TOKEN_LENGTH = 32;

/** Where a generated token is written, inside the data folder. */
export const TOKEN_FILE_NAME = "api-token";

/** 32 random bytes, base64url (43 characters). */
export function generateToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Throws CONFIG_INVALID unless `token` is usable; `source` names where it came from. */
export function checkToken(token: string, source: string): string {
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new SluiceError("CONFIG_INVALID", `the token from ${source} is ${token.length} characters; use at least ${MIN_TOKEN_LENGTH} (e.g. openssl rand -base64 32), or give none and one is generated`, { source, minLength: MIN_TOKEN_LENGTH });
  }
  if (/\s/.test(token)) throw new SluiceError("CONFIG_INVALID", `the token from ${source} contains white space`, { source });
  return token;
}

/** Reads a token file (its first line, trimmed). */
export function readTokenFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new SluiceError("CONFIG_INVALID", `cannot read the token file ${file} (${(err as { code?: string }).code ?? "I/O error"})`, { file });
  }
  return checkToken(text.split(/\r?\n/)[0]!.trim(), file);
}

/** Writes `token` to `<dataDir>/api-token` with mode 0600 (replacing an older one whole). */
export function writeTokenFile(dataDir: string, token: string): string {
  ensurePrivateDir(dataDir);
  const file = path.join(dataDir, TOKEN_FILE_NAME);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${token}\n`, { mode: 0o600, flag: "w" });
  renameSync(temp, file);
  return file;
}

export interface ResolvedToken {
  token: string;
  /** Set when the token is the data folder's: the file it is (or, when `generated`, will be) in. */
  file?: string;
  /** True when the token is new: the caller writes it to `file` once the server listens. */
  generated?: boolean;
}

/**
 * The token a server uses: the given one (checked); without one, the data folder's
 * `api-token` when it exists (kept across restarts), else a fresh one. Writes nothing: a
 * fresh token is written by the caller once the server listens ({@link writeTokenFile}).
 */
export function resolveToken(given: { token?: string | undefined; tokenFile?: string | undefined }, dataDir: string): ResolvedToken {
  if (given.token !== undefined && given.tokenFile !== undefined) throw new SluiceError("CONFIG_INVALID", "give the token once: --token (or SLUICE_TOKEN) or --token-file, not both");
  if (given.tokenFile !== undefined) return { token: readTokenFile(given.tokenFile) };
  if (given.token !== undefined) return { token: checkToken(given.token, "--token / SLUICE_TOKEN") };
  const file = path.join(dataDir, TOKEN_FILE_NAME);
  if (existsSync(file)) return { token: readTokenFile(file), file };
  return { token: generateToken(), file, generated: true };
}

/** Replaces the data folder's token with a fresh one (`sluice token rotate`); returns the file. */
export function rotateTokenFile(dataDir: string): string {
  return writeTokenFile(dataDir, generateToken());
}
