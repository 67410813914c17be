// The work an upload does is bounded before the expensive passes: br_table targets, which
// binaryen (the fuel meter) and V8's optimising compiler handle in more than linear time,
// are counted when the module's shape is read, and a module past its limit is refused with
// MODULE_LIMIT_EXCEEDED naming the hook.yaml key, before it is metered or compiled.
import { describe, expect, it } from "vitest";
import wabtInit from "wabt";
import { isSluiceError } from "../../host/errors/sluice-error.js";
import { loadModule } from "../../host/sandbox/main/load-module.js";
import { DEFAULT_LIMITS } from "../../host/sandbox/limits.js";

/** A valid guest with `functions` extra functions, each holding one br_table of `targets` targets. */
async function branchy(functions: number, targets: number): Promise<Uint8Array> {
  const wabt = await wabtInit();
  const table = Array.from({ length: targets }, (_, i) => i % 2).join(" ");
  const fn = (i: number) => `(func (export "f${i}") (param i32) (block (block (local.get 0) (br_table ${table} 0))))`;
  const wat = `(module (memory (export "memory") 1)
    (func (export "sluice_abi_v1_0"))
    (func (export "sluice_alloc") (param i32) (result i32) (i32.const 1024))
    (func (export "sluice_handle") (param i32 i32) (result i64) (i64.const 0))
    ${Array.from({ length: functions }, (_, i) => fn(i)).join("\n")})`;
  const mod = wabt.parseWat("branchy.wat", wat);
  try { return new Uint8Array(mod.toBinary({}).buffer); } finally { mod.destroy(); }
}

async function refusal(bytes: Uint8Array, limits = {}): Promise<{ code: string; message: string; details?: Record<string, unknown> } | "accepted"> {
  try {
    await loadModule(bytes, { limits });
    return "accepted";
  } catch (err) {
    if (!isSluiceError(err)) throw err;
    return { code: err.code, message: err.message, details: err.details as Record<string, unknown> };
  }
}

describe("an upload's work is bounded before the module is metered or compiled", () => {
  it("a br_table with more targets than branch_targets is refused, naming the function and the hook.yaml key", async () => {
    const r = await refusal(await branchy(1, DEFAULT_LIMITS.branchTargets + 1));
    expect(r).toMatchObject({ code: "MODULE_LIMIT_EXCEEDED", details: { limit: "branchTargets", value: DEFAULT_LIMITS.branchTargets + 1, max: DEFAULT_LIMITS.branchTargets } });
    expect(r !== "accepted" && r.message).toMatch(/a br_table with 4097 targets in function 3: .*hook\.yaml limits\.branch_targets/);
  });

  it("br_tables that are each within bounds but add up past branch_targets_total are refused", async () => {
    const r = await refusal(await branchy(25, 4_096));
    expect(r).toMatchObject({ code: "MODULE_LIMIT_EXCEEDED", details: { limit: "branchTargetsTotal", value: 102_400, max: DEFAULT_LIMITS.branchTargetsTotal } });
    expect(r !== "accepted" && r.message).toMatch(/hook\.yaml limits\.branch_targets_total/);
  });

  it("the module of the report (50 functions, each a 65,000-target br_table) is refused, and the next upload is served", async () => {
    const r = await refusal(await branchy(50, 65_000));
    expect(r !== "accepted" && r.code).toBe("MODULE_LIMIT_EXCEEDED");
    expect(await refusal(await branchy(1, 32))).toBe("accepted");
  });

  it("a manifest may raise the limit up to the host's maximum", async () => {
    expect(await refusal(await branchy(1, 5_000), { branchTargets: 5_000 })).toBe("accepted");
  });
});
