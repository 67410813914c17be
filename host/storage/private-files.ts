/**
 * Data folders and files only their owner can read: folders 0700, files 0600. Databases,
 * artifacts, the API token and the digest key all hold what other local users must not
 * read. Files are created with the mode before anything is written to them (SQLite gives
 * its -wal and -shm files the mode of the database file).
 */
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from "node:fs";

/** Creates `dir` (and its parents) 0700; an existing folder is narrowed to 0700. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/** Creates `file` empty with mode 0600 unless it exists; an existing file is narrowed to 0600. */
export function ensurePrivateFile(file: string): void {
  closeSync(openSync(file, "a", 0o600));
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
}
