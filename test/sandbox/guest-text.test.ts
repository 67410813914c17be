// A guest's bytes never reach an error message or a log line as themselves: an abort whose
// message is binary msgpack, a terminal escape or a line break comes back escaped.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../../host/sandbox/index.js";
import { fixture } from "../helpers/fixtures.js";
import { request } from "../helpers/requests.js";
import { componentFixture } from "../components/fixtures.js";

let sandbox: Sandbox;
beforeAll(() => { sandbox = createSandbox({ workers: 1 }); });
afterAll(() => sandbox.close());

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

describe("a guest's abort message", () => {
  it("from a core guest is escaped: binary msgpack, a terminal escape and a line break come back as \\x escapes", async () => {
    const r = await sandbox.invoke(await sandbox.load(fixture("abort-binary-message")), request());
    expect(!r.ok && r.error.code).toBe("GUEST_ABORTED");
    const expected = "\\x82\\xa3abi\\x1b[31mred\\x0anext\\xff\\x00";
    expect(!r.ok && r.error.message).toBe(`guest aborted: ${expected}`);
    expect(!r.ok && r.error.details).toEqual({ guestMessage: expected });
    expect(!r.ok && CONTROL.test(r.error.message)).toBe(false);
  });

  it("from a component is escaped the same way", async () => {
    const r = await sandbox.invoke(await sandbox.load(await componentFixture("abort-binary"), { limits: { timeoutMs: 5_000 } }), request());
    expect(!r.ok && r.error.code).toBe("GUEST_ABORTED");
    // jco's glue decodes the string before the host sees it: the byte that is not UTF-8 is already U+FFFD.
    expect(!r.ok && r.error.message).toBe("guest aborted: \\x1b[31mred\\x0anext\ufffd\\x00");
    expect(!r.ok && CONTROL.test(r.error.message)).toBe(false);
  });
});
