/** The host reads a guest's reply in the smallest form only, and at a minor no newer than the guest's marker (abi/README.md §2, §4). */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encode } from "../../abi/codec.js";
import { loadNoncanonicalVectors } from "../../abi/vectors.js";
import { createSandbox, type LoadedModule, type Sandbox } from "../../host/sandbox/index.js";
import { repoRoot } from "../helpers/fixtures.js";
import { cGuest } from "../helpers/native-guests.js";

let sandbox: Sandbox;
let guest: LoadedModule;

beforeAll(async () => {
  sandbox = createSandbox({ workers: 1 });
  guest = await sandbox.load(await cGuest(path.join(repoRoot, "test/fixtures/c/raw-reply.c"), path.join(repoRoot, "build/fixtures/c-raw-reply.wasm")), { capabilities: [], limits: { timeoutMs: 2000 } });
}, 120_000);
afterAll(() => sandbox?.close());

const hex = (h: string) => new Uint8Array(Buffer.from(h.replace(/\s+/g, ""), "hex"));
// {abi: "1.0", outcome: "short_circuit", result: <value>}: the value's bytes end the reply.
const HEAD = "83 a3616269 a3312e30 a76f7574636f6d65 ad73686f72745f63697263756974 a6726573756c74";
const reply = async (bytes: Uint8Array) => sandbox.invokeBytes(guest, encode({ abi: "1.1", point: "tool.before", payload: { reply: bytes } }), { timeoutMs: 2000 });

describe("a reply is read in the smallest form only", () => {
  it("serves a reply in the smallest form", async () => {
    const r = await reply(hex(`${HEAD} cd0100`));
    expect(r.ok && r.outcome).toEqual({ kind: "short_circuit", result: 256 });
  });

  it("serves an integer above 2^32 written as uint64 as well as int64: both take 8 bytes, and encoders differ", async () => {
    for (const header of ["cf", "d3"]) {
      const r = await reply(hex(`${HEAD} ${header} 00038d7ea4c68000`));
      expect(r.ok && r.outcome, header).toEqual({ kind: "short_circuit", result: 1_000_000_000_000_000 });
    }
  });

  for (const v of loadNoncanonicalVectors()) {
    it(`refuses ${v.name} in a reply with OUTPUT_MALFORMED (${v.why})`, async () => {
      const r = await reply(new Uint8Array([...hex(HEAD), ...v.bytes]));
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe("OUTPUT_MALFORMED");
        expect(r.error.message).toMatch(/smallest form|float32/);
      }
    });
  }

  it("refuses a map key written as str8 though it fits a fixstr", async () => {
    const r = await reply(hex("83 d903616269 a3312e30 a76f7574636f6d65 a8636f6e74696e7565"));
    expect(!r.ok && r.error.code).toBe("OUTPUT_MALFORMED");
  });
});

describe("a reply speaks its marker's minor or an older one", () => {
  it("refuses a 1.0 guest's reply that says 1.1 with OUTPUT_INVALID", async () => {
    const r = await reply(hex("82 a3616269 a3312e31 a76f7574636f6d65 a8636f6e74696e7565"));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe("OUTPUT_INVALID");
      expect(r.error.message).toContain("may not claim a newer minor than its marker");
    }
  });

  it("serves the same guest's reply that says 1.0", async () => {
    const r = await reply(hex("82 a3616269 a3312e30 a76f7574636f6d65 a8636f6e74696e7565"));
    expect(r.ok && r.outcome).toEqual({ kind: "continue" });
  });
});
