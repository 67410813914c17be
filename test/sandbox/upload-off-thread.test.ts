// Upload checks and compilation run on the loader thread: the host's event loop keeps
// turning while a large module is checked and compiled (the time bound itself is measured
// in bench scenario 8, not asserted here), and a module at the default function limit loads.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../../host/sandbox/index.js";
import { isSluiceError } from "../../host/errors/sluice-error.js";
import { manyFunctionsModule } from "../helpers/big-module.js";
import { request } from "../helpers/requests.js";

let sandbox: Sandbox;
beforeAll(() => { sandbox = createSandbox({ workers: 1 }); });
afterAll(() => sandbox.close());

describe("uploading a large module", () => {
  it("loads a 3.8 MB module of 100,000 functions while the event loop keeps turning, and runs it", async () => {
    const bytes = manyFunctionsModule(100_000, 36);
    let turns = 0;
    let loading = true;
    const spin = (): void => { if (loading) { turns++; setImmediate(spin); } };
    setImmediate(spin);
    const mod = await sandbox.load(bytes, { limits: { timeoutMs: 5000 } });
    loading = false;
    // Compiling 100,000 functions takes hundreds of milliseconds of engine work; on the main
    // thread that would be a handful of turns, on the loader thread it is thousands.
    expect(turns).toBeGreaterThan(50);
    const r = await sandbox.invoke(mod, request());
    expect(r.ok && r.outcome.kind).toBe("continue");
  });

  it("refuses one function more than the default limit with MODULE_LIMIT_EXCEEDED", async () => {
    const err = await sandbox.load(manyFunctionsModule(100_001)).catch((e: unknown) => e);
    expect(isSluiceError(err, "MODULE_LIMIT_EXCEEDED")).toBe(true);
    expect((err as { details: unknown }).details).toEqual({ limit: "functions", value: 100_001, max: 100_000, item: "100001 functions" });
  });
});
