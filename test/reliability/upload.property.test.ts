/**
 * Whatever bytes are uploaded, loading answers with a compiled module or a catalogue code,
 * and the host keeps serving: random bytes, and valid modules (core and component) with
 * bytes flipped, cut or spliced. The strict reply scanner agrees with the encoder on
 * every value the ABI can carry, and refuses what the encoding rules forbid.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encode } from "../../abi/codec.js";
import { RESERVED_KEYS, scanStrict } from "../../abi/strict-msgpack.js";
import { ERROR_CODES } from "../../host/errors/codes.js";
import { isSluiceError } from "../../host/errors/sluice-error.js";
import { createSandbox, type Sandbox } from "../../host/sandbox/index.js";
import { componentFixture } from "../components/fixtures.js";
import { fixture, pluginWasm } from "../helpers/fixtures.js";
import { request } from "../helpers/requests.js";

let sandbox: Sandbox;
beforeAll(() => { sandbox = createSandbox({ workers: 1 }); });
afterAll(() => sandbox.close());

const LOAD_CODES = new Set(["MODULE_INVALID", "MODULE_TOO_LARGE", "MODULE_MISSING_EXPORT", "MODULE_FORBIDDEN_IMPORT", "MODULE_MEMORY_TOO_LARGE", "MODULE_LIMIT_EXCEEDED", "CAPABILITY_NOT_GRANTED", "ABI_VERSION_MISSING", "ABI_VERSION_UNSUPPORTED"]);

async function outcomeOf(bytes: Uint8Array): Promise<string> {
  try {
    const m = await sandbox.load(bytes, { limits: { timeoutMs: 2000 } });
    const r = await sandbox.invoke(m, request());
    // A mutated module that still loads may do anything at run time, but only with a code.
    return r.ok ? "ran" : r.error.code;
  } catch (err) {
    if (!isSluiceError(err)) throw err;
    expect(LOAD_CODES).toContain(err.code);
    return err.code;
  }
}

describe("uploading arbitrary bytes", () => {
  it("gives a loaded module or a load code for random bytes and mutated core modules", async () => {
    const seeds = [fixture("continue"), fixture("table-grow"), pluginWasm("pii-redact")];
    const mutated = fc.tuple(fc.constantFrom(...seeds), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }), fc.option(fc.nat()))
      .map(([seed, flips, cut]) => {
        const b = seed.slice();
        for (const [at, byte] of flips) b[at % b.length] = byte;
        return cut === null ? b : b.slice(0, cut % (b.length + 1));
      });
    const header = fc.uint8Array({ maxLength: 512 }).map((tail) => Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...tail]));
    const seen = new Map<string, number>();
    await fc.assert(fc.asyncProperty(fc.oneof(fc.uint8Array({ maxLength: 512 }), header, mutated), async (bytes) => {
      const code = await outcomeOf(bytes);
      expect(code === "ran" || code in ERROR_CODES).toBe(true);
      seen.set(code, (seen.get(code) ?? 0) + 1);
    }), { numRuns: 300 });
    // Both ends are reached: some mutants still load, most are refused.
    expect(seen.get("MODULE_INVALID") ?? 0).toBeGreaterThan(0);
    const benign = await sandbox.invoke(await sandbox.load(fixture("continue")), request());
    expect(benign.ok).toBe(true);
  }, 120_000);

  it("gives a loaded module or a load code for mutated components", async () => {
    const seed = await componentFixture("wat-continue");
    await fc.assert(fc.asyncProperty(fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), async (flips) => {
      const b = seed.slice();
      for (const [at, byte] of flips) b[8 + (at % (b.length - 8))] = byte;
      const code = await outcomeOf(b);
      expect(code === "ran" || code in ERROR_CODES).toBe(true);
    }), { numRuns: 40 });
  }, 120_000);
});

describe("the strict reply scanner", () => {
  const noReservedKeys = (v: unknown): boolean => {
    if (Array.isArray(v)) return v.every(noReservedKeys);
    if (v !== null && typeof v === "object") return Object.keys(v).every((k) => !RESERVED_KEYS.has(k)) && Object.values(v).every(noReservedKeys);
    return true;
  };

  it("accepts every JSON value the host's encoder writes (nesting within 64, no reserved keys)", () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 8 }).filter(noReservedKeys), (v) => {
      expect(scanStrict(encode(v))).toEqual({ ok: true });
    }), { numRuns: 2_000 });
  });

  it("refuses a map with a repeated key at any depth, and a reserved key anywhere", () => {
    fc.assert(fc.property(fc.string({ maxLength: 20 }).filter((k) => !RESERVED_KEYS.has(k)), fc.nat({ max: 10 }), (key, depth) => {
      // {key: 1, key: 2}, wrapped `depth` times in single-element arrays.
      const k = encode(key);
      const dup = Uint8Array.from([...Array(depth).fill(0x91), 0x82, ...k, 0x01, ...k, 0x02]);
      const r = scanStrict(dup);
      expect(r.ok === false && r.malformed).toBe(true);
    }), { numRuns: 500 });
    for (const key of RESERVED_KEYS) {
      const r = scanStrict(Uint8Array.from([0x91, 0x81, ...encode(key), 0xc0]));
      expect(r).toMatchObject({ ok: false, malformed: false });
    }
  });
});
