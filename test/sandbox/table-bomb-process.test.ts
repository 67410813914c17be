// The cases that would abort the whole Node process (V8 "Reached heap limit" from a worker
// creating huge tables) run in a child process: the child must refuse them, serve a benign
// call and exit normally. Run in the parent, a regression would take the test runner down.
import { describe, expect, it } from "vitest";
import { runToExit } from "../helpers/child.js";

const dist = (p: string): string => JSON.stringify(new URL(`../../dist/${p}`, import.meta.url).href);
const build = (p: string): string => JSON.stringify(new URL(`../../build/${p}`, import.meta.url).pathname);

const script = `
  import { readFileSync } from "node:fs";
  import { createSandbox } from ${dist("host/sandbox/index.js")};
  import { componentFixture } from ${dist("test/components/fixtures.js")};
  const sandbox = createSandbox({ workers: 1 });
  const request = { abi: "1.0", point: "tool.before", context: {}, payload: {}, config: {} };
  const results = {};
  const bombs = {
    "table-bomb": readFileSync(${build("fixtures/table-bomb.wasm")}),
    "table-bomb-three": readFileSync(${build("fixtures/table-bomb-three.wasm")}),
    "table-bomb-twenty": readFileSync(${build("fixtures/table-bomb-twenty.wasm")}),
    "component-table-bomb": await componentFixture("table-bomb"),
  };
  for (const [name, bytes] of Object.entries(bombs)) {
    results[name] = await sandbox.load(bytes, { limits: { timeoutMs: 5000 } }).then(
      async (m) => { const r = await sandbox.invoke(m, request); return r.ok ? "ran" : r.error.code; },
      (e) => e.code);
  }
  const max = await sandbox.load(readFileSync(${build("fixtures/tables-at-host-maximum.wasm")}), { limits: { tables: 8, tableEntries: 200000, timeoutMs: 5000 } });
  for (let i = 0; i < 3; i++) { const r = await sandbox.invoke(max, request); results["host-maximum-" + i] = r.ok ? r.outcome.kind : r.error.code; }
  const ok = await sandbox.load(readFileSync(${build("fixtures/continue.wasm")}));
  const r = await sandbox.invoke(ok, request);
  results.benign = r.ok ? r.outcome.kind : r.error.code;
  await sandbox.close();
  console.log(JSON.stringify(results));
`;

describe("modules whose tables would abort the process", () => {
  it("are refused at load in a child process, which then serves a benign call and exits normally", async () => {
    const { out, err, code } = await runToExit(["--input-type=module", "-e", script], 60_000);
    expect({ code, err: err.includes("FATAL") ? err : "" }).toEqual({ code: 0, err: "" });
    expect(JSON.parse(out)).toEqual({
      "table-bomb": "MODULE_LIMIT_EXCEEDED",
      "table-bomb-three": "MODULE_LIMIT_EXCEEDED",
      "table-bomb-twenty": "MODULE_LIMIT_EXCEEDED",
      "component-table-bomb": "MODULE_LIMIT_EXCEEDED",
      "host-maximum-0": "continue",
      "host-maximum-1": "continue",
      "host-maximum-2": "continue",
      benign: "continue",
    });
  }, 90_000);
});
