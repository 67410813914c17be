// Guest containment: every engine resource a module can declare is bounded at
// load, exports and markers are exact, capabilities are known, and every reply fault gets
// the ABI's code, the same for core modules and components. Each case is one fixture, and
// a benign call on the same sandbox succeeds right after it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isSluiceError } from "../../host/errors/sluice-error.js";
import { createSandbox, type LoadOptions, type Sandbox } from "../../host/sandbox/index.js";
import { componentFixture } from "../components/fixtures.js";
import { benignCallSucceeds } from "../helpers/benign-call.js";
import { fixture } from "../helpers/fixtures.js";
import { request } from "../helpers/requests.js";

let sandbox: Sandbox;
beforeAll(() => { sandbox = createSandbox({ workers: 2 }); });
afterAll(() => sandbox.close());


async function refusal(bytes: Uint8Array, options: LoadOptions = {}): Promise<{ code: string; message: string; details: Record<string, unknown> }> {
  const err = await sandbox.load(bytes, options).then(() => undefined, (e: unknown) => e);
  if (!isSluiceError(err)) throw new Error(`expected a refusal, got ${err === undefined ? "a loaded module" : String(err)}`);
  return { code: err.code, message: err.message, details: err.details };
}

describe("a module's declared engine resources are bounded at load", () => {
  it("two funcref tables of 10,000,000 entries are refused with MODULE_LIMIT_EXCEEDED naming the table", async () => {
    const r = await refusal(fixture("table-bomb"));
    expect(r.code).toBe("MODULE_LIMIT_EXCEEDED");
    expect(r.details).toEqual({ limit: "tableEntries", value: 10_000_000, max: 50_000, item: "table 0 with 10000000 initial entries" });
    expect(r.message).toMatch(/limits\.table_entries/);
    await benignCallSucceeds(sandbox);
  });

  it("twenty tables are refused against the default of four", async () => {
    const r = await refusal(fixture("many-tables"));
    expect(r).toMatchObject({ code: "MODULE_LIMIT_EXCEEDED", details: { limit: "tables", value: 20, max: 4 } });
    await benignCallSucceeds(sandbox);
  });

  it("a table's maximum is capped, so table.grow past the limit fails inside the guest", async () => {
    const mod = await sandbox.load(fixture("table-grow"));
    const r = await sandbox.invoke(mod, request());
    expect(r.ok && r.outcome.kind).toBe("continue");
  });

  const perLimit: [fixture: string, limit: string, requested: Partial<Record<string, number>>, value: number][] = [
    ["many-functions", "functions", { functions: 10 }, 20],
    ["many-globals", "globals", { globals: 10 }, 20],
    ["many-types", "types", { types: 10 }, 23],
    ["many-exports", "exports", { exports: 10 }, 21],
    ["many-element-entries", "elementEntries", { elementEntries: 10 }, 20],
    ["many-data-segments", "dataSegments", { dataSegments: 10 }, 20],
    ["many-tags", "tags", { tags: 10 }, 20],
    ["many-locals", "locals", { locals: 10 }, 20],
  ];
  for (const [name, limit, limits, value] of perLimit) {
    it(`${name} is refused when the plugin's ${limit} limit is lower, and loads under the default`, async () => {
      const r = await refusal(fixture(name), { limits });
      expect(r).toMatchObject({ code: "MODULE_LIMIT_EXCEEDED", details: { limit, value, max: limits[limit] } });
      await expect(sandbox.load(fixture(name))).resolves.toMatchObject({ abi: { major: 1, minor: 0 } });
      await benignCallSucceeds(sandbox);
    });
  }

  it("a function body larger than limits.functionBytes is refused, naming the function", async () => {
    const r = await refusal(fixture("big-function-body"), { limits: { functionBytes: 1024 } });
    expect(r.code).toBe("MODULE_LIMIT_EXCEEDED");
    expect(r.details).toMatchObject({ limit: "functionBytes", max: 1024 });
    expect(r.details.item).toMatch(/^function 3 with a \d+-byte body$/);
  });

  it("a per-plugin limit above the host maximum is capped, not granted", async () => {
    const r = await refusal(fixture("table-bomb"), { limits: { tableEntries: 100_000_000 } });
    expect(r.details).toMatchObject({ limit: "tableEntries", max: 200_000 });
  });

  it("the same table bomb inside a component is refused with the same code", async () => {
    const r = await refusal(await componentFixture("table-bomb"));
    expect(r.code).toBe("MODULE_LIMIT_EXCEEDED");
    expect(r.message).toMatch(/component's core module .* declares table 0 with 10000000 initial entries/);
    await benignCallSucceeds(sandbox);
  });
});

describe("exports and the ABI marker are checked exactly at load", () => {
  const cases: [string, string, RegExp][] = [
    ["alloc-i64", "MODULE_MISSING_EXPORT", /"sluice_alloc" as \(i64\)->\(i64\); ABI v1 declares it \(i32\)->\(i32\)/],
    ["alloc-no-params", "MODULE_MISSING_EXPORT", /"sluice_alloc" as \(\)->\(i32\); ABI v1 declares it \(i32\)->\(i32\)/],
    ["handle-returns-i32", "MODULE_MISSING_EXPORT", /"sluice_handle" as \(i32,i32\)->\(i32\); ABI v1 declares it \(i32,i32\)->\(i64\)/],
    ["handle-i64-params", "MODULE_MISSING_EXPORT", /"sluice_handle" as \(i64,i64\)->\(i64\); ABI v1 declares it \(i32,i32\)->\(i64\)/],
    ["marker-leading-zeros", "ABI_VERSION_MISSING", /"sluice_abi_v01_00" is not a canonical ABI marker/],
    ["marker-global", "MODULE_MISSING_EXPORT", /marker "sluice_abi_v1_0" must be a function \(it is a global\)/],
  ];
  for (const [name, code, message] of cases) {
    it(`${name} is refused with ${code}, naming the export`, async () => {
      const r = await refusal(fixture(name));
      expect(r.code).toBe(code);
      expect(r.message).toMatch(message);
      expect(typeof r.details.export).toBe("string");
      await benignCallSucceeds(sandbox);
    });
  }
});

describe("capabilities come from the known set only", () => {
  it("an unknown capability is refused with CAPABILITY_UNKNOWN naming it, for modules and components", async () => {
    const core = await refusal(fixture("continue"), { capabilities: ["kv", "net"] });
    expect(core).toMatchObject({ code: "CAPABILITY_UNKNOWN", details: { capability: "net", known: ["kv"] } });
    const component = await refusal(await componentFixture("wat-continue"), { capabilities: ["net"] });
    expect(component).toMatchObject({ code: "CAPABILITY_UNKNOWN", details: { capability: "net" } });
    await benignCallSucceeds(sandbox);
  });
});

describe("the reply decoder is as strict as the ABI's encoding rules", () => {
  const cases: [string, string, RegExp][] = [
    ["reply-duplicate-outcome", "OUTPUT_MALFORMED", /map key "outcome" appears twice at \//],
    ["reply-duplicate-nested-key", "OUTPUT_MALFORMED", /map key "k" appears twice at \/annotations/],
    ["reply-integer-key", "OUTPUT_MALFORMED", /map key at byte \d+ \(\/\) is not a string/],
    ["reply-lone-c1", "OUTPUT_MALFORMED", /0xc1/],
    ["malformed-output", "OUTPUT_MALFORMED", /0xc1/],
    ["reply-timestamp", "OUTPUT_MALFORMED", /extension \(0xd6\)/],
    ["reply-too-deep", "OUTPUT_MALFORMED", /nesting is deeper than 64/],
    ["reply-trailing-bytes", "OUTPUT_MALFORMED", /1 bytes follow the value/],
    ["reply-invalid-utf8", "OUTPUT_MALFORMED", /not valid UTF-8/],
    ["reply-abi-major-2", "OUTPUT_INVALID", /reply\.abi is "2\.0" but the module declares ABI 1\.x/],
    ["reply-proto-key", "OUTPUT_INVALID", /map key "__proto__" at \/annotations is reserved/],
  ];
  for (const [name, code, message] of cases) {
    it(`${name} fails with ${code}`, async () => {
      const mod = await sandbox.load(fixture(name));
      const r = await sandbox.invoke(mod, request());
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe(code);
        expect(r.error.message).toMatch(message);
      }
      await benignCallSucceeds(sandbox);
    });
  }
});

describe("component replies are read with the core modules' checks, in the same order", () => {
  const cases: [string, string, Record<string, unknown>][] = [
    ["reply-wrapping", "OUTPUT_OUT_OF_BOUNDS", { ptr: 0xfffffff0, len: 0x20 }],
    ["reply-huge-length", "OUTPUT_TOO_LARGE", { size: 0x7fffffff, limit: 1024 * 1024 }],
    ["reply-past-end", "OUTPUT_OUT_OF_BOUNDS", { ptr: 65536 - 26, len: 1026 }],
  ];
  for (const [name, code, details] of cases) {
    it(`${name} fails with ${code}`, async () => {
      const mod = await sandbox.load(await componentFixture(name));
      const r = await sandbox.invoke(mod, request());
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toMatchObject({ code, details });
      await benignCallSucceeds(sandbox);
    });
  }

  it("a well-formed component reply in WAT is accepted (the checks refuse only faults)", async () => {
    const mod = await sandbox.load(await componentFixture("wat-continue"));
    const r = await sandbox.invoke(mod, request());
    expect(r.ok && r.outcome.kind).toBe("continue");
  });

  it("core modules give the same codes for the same faults", async () => {
    const tooLarge = await sandbox.invoke(await sandbox.load(fixture("output-too-large")), request());
    const outOfBounds = await sandbox.invoke(await sandbox.load(fixture("output-out-of-bounds")), request());
    expect(!tooLarge.ok && tooLarge.error.code).toBe("OUTPUT_TOO_LARGE");
    expect(!outOfBounds.ok && outOfBounds.error.code).toBe("OUTPUT_OUT_OF_BOUNDS");
  });
});
