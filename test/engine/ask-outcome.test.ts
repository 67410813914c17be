import { describe, expect, it } from "vitest";
import { parseReply } from "../../abi/envelope.js";
import { outcomeOf, stopError } from "../../host/engine/endings.js";

const size = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

describe("the ask outcome (ABI 1.2)", () => {
  it("is read from a 1.2 reply, with or without a code", () => {
    expect(parseReply({ abi: "1.2", outcome: "ask", reason: "network call" }, size, 1, 2)).toEqual({ ok: true, outcome: { kind: "ask", reason: "network call" } });
    expect(parseReply({ abi: "1.2", outcome: "ask", code: "shell.net", reason: "network call" }, size, 1, 2)).toEqual({ ok: true, outcome: { kind: "ask", code: "shell.net", reason: "network call" } });
  });

  it("cannot be sent by a guest whose reply says 1.1 or 1.0", () => {
    const r = parseReply({ abi: "1.1", outcome: "ask", reason: "network call" }, size, 1, 1);
    expect(r).toMatchObject({ ok: false });
    expect((r as { message: string }).message).toContain('reply.outcome "ask" is ABI 1.2');
  });

  it("cannot claim 1.2 from a module whose marker is 1.1", () => {
    expect(parseReply({ abi: "1.2", outcome: "ask", reason: "x" }, size, 1, 1)).toMatchObject({ ok: false });
  });

  it("needs a bounded reason and a well-formed code", () => {
    expect(parseReply({ abi: "1.2", outcome: "ask" }, size, 1, 2)).toMatchObject({ ok: false, message: "reply.reason must be a string for ask" });
    expect(parseReply({ abi: "1.2", outcome: "ask", reason: "é".repeat(600) }, size, 1, 2)).toMatchObject({ ok: false, message: "reply.reason is longer than 1024 bytes" });
    expect(parseReply({ abi: "1.2", outcome: "ask", code: "Bad Code", reason: "x" }, size, 1, 2)).toMatchObject({ ok: false });
  });

  it("ends the operation with HOOK_ASKED, outcome asked", () => {
    const e = stopError({ kind: "ask", bindingId: "guard", code: "shell.net", reason: "network call" });
    expect(e).toEqual({ code: "HOOK_ASKED", message: "approval required by binding guard: shell.net network call", details: { bindingId: "guard", hookCode: "shell.net", reason: "network call" } });
    expect(stopError({ kind: "ask", bindingId: "guard", reason: "network call" }).message).toBe("approval required by binding guard: network call");
    expect(outcomeOf(e)).toBe("asked");
  });
});
