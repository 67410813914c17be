// A component's first call runs optimised code, as a core guest's does: its core modules are
// compiled by V8's optimising compiler at upload, so a first call does not start in baseline
// code (several times slower, and past its time limit on a loaded machine). Checked on what
// the loader reports it compiled, not by timing a call.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../../host/sandbox/index.js";
import { fixture } from "../helpers/fixtures.js";
import { componentFixture } from "./fixtures.js";

let sandbox: Sandbox;
beforeAll(() => { sandbox = createSandbox({ workers: 1 }); });
afterAll(() => sandbox.close());

describe("the code a freshly uploaded guest's first call runs", () => {
  it("is optimised for a component under the size limit, as for a core guest", async () => {
    const component = await sandbox.load(await componentFixture("wat-continue"));
    const core = await sandbox.load(fixture("continue"));
    expect(component.component).toBeDefined();
    expect(component.tier).toBe("optimised");
    expect(core.tier).toBe("optimised");
  });

  it("is optimised for an AssemblyScript hook wrapped as a component", async () => {
    const component = await sandbox.load(await componentFixture("vector-echo"));
    expect(component.tier).toBe("optimised");
  });
});
