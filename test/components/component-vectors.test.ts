// The ABI golden vectors through a component guest: the same checks as
// test/abi/guest-sdk-vectors.test.ts, with the echo hook wrapped as a component, so the
// request and reply cross jco's list<u8> lifting and lowering byte for byte.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCodecVectors, loadEnvelopeVectors, loadInvalidVectors, loadNoncanonicalVectors, toHex } from "../../abi/vectors.js";
import { createSandbox, type LoadedModule, type Sandbox } from "../../host/sandbox/index.js";
import { componentFixture } from "./fixtures.js";

const HEAD = Buffer.from("83a3616269a3312e30a5706f696e74a9746573742e6563686fa77061796c6f616481a576616c7565", "hex");
const echoRequest = (value: Uint8Array): Uint8Array => new Uint8Array(Buffer.concat([HEAD, value]));

let sandbox: Sandbox;
let echo: LoadedModule;

beforeAll(async () => {
  sandbox = createSandbox({ workers: 2 });
  echo = await sandbox.load(await componentFixture("vector-echo"), { capabilities: [] });
});
afterAll(async () => {
  await sandbox?.close();
});

async function echoed(value: Uint8Array): Promise<string> {
  const r = await sandbox.invokeBytes(echo, echoRequest(value), { timeoutMs: 2000, raw: true });
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return toHex(r.replyBytes!);
}

describe("ABI v1 vectors through a component guest", () => {
  it("is loaded as a component", () => {
    expect(echo.component?.handler).toBe("sluice:hook/handler@1.0.0");
    expect(echo.abi).toEqual({ major: 1, minor: 0 });
  });

  for (const v of [...loadCodecVectors(), ...loadEnvelopeVectors()]) {
    it(`re-encodes ${v.name} to exactly the vector's bytes`, async () => {
      expect((await echoed(v.bytes)).endsWith(toHex(v.bytes))).toBe(true);
    });
  }

  for (const v of loadNoncanonicalVectors()) {
    it(`accepts the non-canonical form ${v.name} and writes it back canonically`, async () => {
      expect((await echoed(v.bytes)).endsWith(toHex(v.canonical))).toBe(true);
    });
  }

  it("keeps non-ASCII text intact in both directions", async () => {
    const r = await sandbox.invokeBytes(echo, echoRequest(Buffer.from("b0636166c3a920e4b8ade69687f09f9880", "hex")), { raw: true, timeoutMs: 2000 });
    expect(r.ok && r.outcome).toStrictEqual({ kind: "short_circuit", result: "café 中文😀" });
  });

  for (const v of loadInvalidVectors()) {
    it(`ends the invocation with GUEST_ABORTED for ${v.name}`, async () => {
      const r = await sandbox.invokeBytes(echo, echoRequest(v.bytes), { timeoutMs: 2000 });
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe("GUEST_ABORTED");
        expect(r.error.message).toContain("malformed request");
      }
    });
  }
});
