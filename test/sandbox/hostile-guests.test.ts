import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../../host/sandbox/index.js";
import { isSluiceError } from "../../host/errors/sluice-error.js";
import { benignCallSucceeds } from "../helpers/benign-call.js";
import { fixture } from "../helpers/fixtures.js";
import { request } from "../helpers/requests.js";

let sandbox: Sandbox;
beforeAll(() => { sandbox = createSandbox({ workers: 2 }); });
afterAll(() => sandbox.close());


describe("a hostile guest gets its own error code, and the next benign call succeeds", () => {
  // A loop stops itself at its fuel budget (the wall-clock backstop is limits.test.ts's).
  const runtime: [string, string, { timeoutMs?: number; memoryBytes?: number; outputBytes?: number; fuel?: number }?][] = [
    ["loop", "GUEST_FUEL_EXHAUSTED", { fuel: 1_000_000 }],
    ["start-loop", "GUEST_FUEL_EXHAUSTED", { fuel: 1_000_000 }],
    ["memory-bomb", "GUEST_MEMORY_LIMIT", { memoryBytes: 4 * 1024 * 1024 }],
    ["output-too-large", "OUTPUT_TOO_LARGE"],
    ["output-out-of-bounds", "OUTPUT_OUT_OF_BOUNDS"],
    ["malformed-output", "OUTPUT_MALFORMED"],
    ["wrong-shape", "OUTPUT_INVALID"],
    ["huge-string-length", "OUTPUT_MALFORMED"],
    ["recursion", "GUEST_STACK_OVERFLOW"],
    ["unreachable", "GUEST_TRAP"],
    ["abort-with-message", "GUEST_ABORTED"],
  ];
  for (const [name, code, limits] of runtime) {
    it(`${name} fails with ${code}`, async () => {
      const mod = await sandbox.load(fixture(name), { limits: limits ?? {} });
      const r = await sandbox.invoke(mod, request());
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.code).toBe(code);
      await benignCallSucceeds(sandbox);
    });
  }

  const refused: [string, string, RegExp][] = [
    ["wrong-abi-major", "ABI_VERSION_UNSUPPORTED", /ABI 2\.0.*serves ABI 1\.2/],
    ["no-abi-marker", "ABI_VERSION_MISSING", /sluice_abi_v1_0/],
    ["missing-exports", "MODULE_MISSING_EXPORT", /sluice_handle/],
    ["import-env-eval", "MODULE_FORBIDDEN_IMPORT", /env\.eval/],
    ["import-wasi", "MODULE_FORBIDDEN_IMPORT", /wasi_snapshot_preview1\.fd_write/],
    ["imported-memory", "MODULE_FORBIDDEN_IMPORT", /sluice_v1\.memory/],
    ["import-wrong-signature", "MODULE_FORBIDDEN_IMPORT", /sluice_v1\.log" as \(i64\)->\(i32\); ABI v1 declares it \(i32,i32,i32\)->\(\)/],
    ["kv-user", "CAPABILITY_NOT_GRANTED", /kv_get.*"kv" capability/],
    ["big-initial-memory", "MODULE_MEMORY_TOO_LARGE", /16384 pages/],
  ];
  for (const [name, code, message] of refused) {
    it(`${name} is refused at load with ${code}`, async () => {
      const err = await sandbox.load(fixture(name)).catch((e: unknown) => e);
      expect(isSluiceError(err, code as never)).toBe(true);
      expect((err as Error).message).toMatch(message);
      await benignCallSucceeds(sandbox);
    });
  }

  it("garbage bytes are refused with MODULE_INVALID", async () => {
    const err = await sandbox.load(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 99, 1, 2])).catch((e: unknown) => e);
    expect(isSluiceError(err, "MODULE_INVALID")).toBe(true);
    const notWasm = await sandbox.load(new TextEncoder().encode("<html>")).catch((e: unknown) => e);
    expect(isSluiceError(notWasm, "MODULE_INVALID")).toBe(true);
  });

  it("a module over its size limit is refused with MODULE_TOO_LARGE", async () => {
    const err = await sandbox.load(fixture("continue"), { limits: { moduleBytes: 16 } }).catch((e: unknown) => e);
    expect(isSluiceError(err, "MODULE_TOO_LARGE")).toBe(true);
  });

  it("a module granted kv loads", async () => {
    await expect(sandbox.load(fixture("kv-user"), { capabilities: ["kv"] })).resolves.toMatchObject({ capabilities: ["kv"] });
  });
});
