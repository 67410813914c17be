/**
 * The deployment's secret, kept in `<data>/digest.key` (0600): it keys the records' digests
 * (pipeline/digest.ts) and, through a key derived from it, seals their content at rest
 * (records/sealed.ts). Generated (32 random bytes, hex) on first open and read back on
 * every open after. Created atomically: written to a temporary file and linked into place,
 * so two processes opening a fresh folder together end up with one key (the first link
 * wins, the other reads it), never each with its own.
 */
import { randomBytes } from "node:crypto";
import { existsSync, linkSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { SluiceError } from "../errors/sluice-error.js";

export const DEPLOYMENT_KEY_FILE = "digest.key";

/** The key to use: `given`, else `<dataDir>/digest.key` (created when missing). */
export function loadDeploymentKey(dataDir: string, given?: Uint8Array | string): Uint8Array | string {
  if (given !== undefined) return given;
  const file = path.join(dataDir, DEPLOYMENT_KEY_FILE);
  try {
    if (existsSync(file)) return readFileSync(file, "utf8").trim();
    const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    writeFileSync(temp, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600, flag: "wx" });
    try {
      linkSync(temp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    } finally {
      rmSync(temp, { force: true });
    }
    return readFileSync(file, "utf8").trim();
  } catch (err) {
    throw new SluiceError("STORE_UNAVAILABLE", `cannot read or create the digest key ${DEPLOYMENT_KEY_FILE} in the data folder (${(err as { code?: string }).code ?? "I/O error"})`, { file: DEPLOYMENT_KEY_FILE }, { cause: err });
  }
}
