import { expect } from "vitest";
import type { Sandbox } from "../../host/sandbox/index.js";
import { fixture } from "./fixtures.js";
import { request } from "./requests.js";

/** After a hostile case: the same sandbox still serves a benign guest's call. */
export async function benignCallSucceeds(sandbox: Sandbox): Promise<void> {
  const mod = await sandbox.load(fixture("continue"));
  const r = await sandbox.invoke(mod, request());
  expect(r.ok && r.outcome.kind).toBe("continue");
}
