/**
 * Instruments each guest once per version: by the original's sha256, the cost model's
 * version and the one limit the rewrite depends on. Small modules are instrumented in tens
 * of milliseconds and kept in memory; a large one (the JavaScript component's 12 MB core
 * module takes binaryen 15-25 s on a loaded two-core machine) is also kept on disk, in a
 * private folder, so a restarted host does not pay again.
 */
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SluiceError } from "../../../errors/sluice-error.js";
import { METER_VERSION } from "./cost-model.js";
import type { MeterOptions } from "./meter.js";

/** Modules at least this large are also cached on disk (instrumenting them takes seconds). */
const DISK_CACHE_BYTES = 1 << 20;
const MEMORY_ENTRIES = 64;

/** Where large instrumented modules live: private to this user (0700), named by their key. */
export const METERED_DIR = join(tmpdir(), `sluice-metered-${process.getuid?.() ?? "u"}`);

const memory = new Map<string, Promise<Uint8Array>>();

function keyOf(sha256: string, variant: string): string {
  return createHash("sha256").update(`${sha256}|${variant}|meter-v${METER_VERSION}|binaryen-130`).digest("hex");
}

/** Only a folder this user made, that nobody else can write to, is trusted to hold guest code. */
function privateDir(): boolean {
  try {
    if (!existsSync(METERED_DIR)) mkdirSync(METERED_DIR, { recursive: true, mode: 0o700 });
    const st = lstatSync(METERED_DIR);
    return st.isDirectory() && (st.mode & 0o077) === 0 && (process.getuid === undefined || st.uid === process.getuid());
  } catch {
    return false;
  }
}

/** The file holds the instrumented bytes followed by their sha256: a torn or altered file is ignored. */
function readDisk(path: string): Uint8Array | undefined {
  try {
    const data = readFileSync(path);
    const body = data.subarray(0, data.byteLength - 32);
    const sum = createHash("sha256").update(body).digest();
    return sum.equals(data.subarray(data.byteLength - 32)) ? new Uint8Array(body) : undefined;
  } catch {
    return undefined;
  }
}

function writeDisk(path: string, bytes: Uint8Array): void {
  try {
    const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(tmp, Buffer.concat([bytes, createHash("sha256").update(bytes).digest()]), { mode: 0o600 });
    renameSync(tmp, path);
  } catch {
    // A cache that cannot be written costs time on the next start, nothing else.
  }
}

async function instrument(bytes: Uint8Array, what: string, options: MeterOptions): Promise<Uint8Array> {
  const { meter, MeterUnsupported } = await import("./meter.js");
  try {
    return meter(bytes, options);
  } catch (err) {
    if (err instanceof MeterUnsupported) throw new SluiceError("MODULE_INVALID", `${what} ${err.message}`);
    if (err instanceof RangeError) throw new SluiceError("MODULE_INVALID", `${what} is nested too deeply to be metered`);
    throw new SluiceError("MODULE_INVALID", `${what} could not be metered: ${(err as Error)?.message ?? String(err)}`);
  }
}

/**
 * The metered form of `bytes`, instrumenting it only the first time. `bytes` is derived from
 * the original whose hash is `sha256` by the load's own rewrites, which `variant` names.
 */
export function meterOnce(bytes: Uint8Array, sha256: string, variant: string, what = "module", options: MeterOptions = {}): Promise<Uint8Array> {
  const key = keyOf(sha256, options.reset === undefined ? variant : `${variant}-reset-${options.reset}`);
  let entry = memory.get(key);
  if (!entry) {
    const path = bytes.byteLength >= DISK_CACHE_BYTES && privateDir() ? join(METERED_DIR, `${key}.wasm`) : undefined;
    entry = (async () => {
      const cached = path ? readDisk(path) : undefined;
      if (cached) return cached;
      const out = await instrument(bytes, what, options);
      if (path) writeDisk(path, out);
      return out;
    })();
    memory.set(key, entry);
    entry.catch(() => memory.delete(key));
    if (memory.size > MEMORY_ENTRIES) memory.delete(memory.keys().next().value!);
  }
  return entry;
}
