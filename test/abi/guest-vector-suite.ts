/**
 * The ABI golden vectors through a real guest behind the real host: one suite, run
 * against every kind of guest (an AssemblyScript core module, a component), so each
 * codec is held to the same bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCodecVectors, loadEnvelopeVectors, loadInvalidVectors, loadNoncanonicalVectors, toHex } from "../../abi/vectors.js";
import { createSandbox, type LoadedModule, type Sandbox } from "../../host/sandbox/index.js";
import fc from "fast-check";
import { encode } from "../../abi/codec.js";

// {abi: "1.0", point: "test.echo", payload: {value: <vector>}}, built by hand so the
// vector's exact bytes reach the guest and the vector ends the request.
const HEAD = Buffer.from("83a3616269a3312e30a5706f696e74a9746573742e6563686fa77061796c6f616481a576616c7565", "hex");
const echoRequest = (value: Uint8Array): Uint8Array => new Uint8Array(Buffer.concat([HEAD, value]));

export interface VectorSuiteOptions {
  /** Also feed every prefix of every small vector (many calls: worth it once per codec). */
  truncation?: boolean;
  /** The echo guest answers its SDK's ask builder at the point "test.ask" (a 1.2 marker): its reply must be the ask vector's bytes. */
  ask?: boolean;
  /** Extra checks on the loaded echo guest. */
  checks?: (echo: () => LoadedModule) => void;
}

/** `echoGuest` returns the bytes of a guest that replies short_circuit with `payload.value` re-encoded. */
export function guestVectorSuite(title: string, echoGuest: () => Promise<Uint8Array>, options: VectorSuiteOptions = {}): void {
  let sandbox: Sandbox;
  let echo: LoadedModule;

  beforeAll(async () => {
    sandbox = createSandbox({ workers: 2 });
    // The calls ask for 2 s (a busy two-core machine can deschedule a worker); a call never gets more than its module allows.
    // The suite checks bytes, not cost: the array32 vectors hold 65,536 items each, decoded and
    // re-encoded in a memory past 256 KiB, where every load is priced as a possible cache miss
    // (ABI §11, cost model 6); the largest passes the default 50 million units.
    echo = await sandbox.load(await echoGuest(), { capabilities: [], limits: { timeoutMs: 2000, fuel: 500_000_000 } });
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  async function echoed(value: Uint8Array): Promise<string> {
    const r = await sandbox.invokeBytes(echo, echoRequest(value), { timeoutMs: 2000, raw: true });
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
    return toHex(r.replyBytes!);
  }

  describe(title, () => {
    options.checks?.(() => echo);

    for (const v of [...loadCodecVectors(), ...loadEnvelopeVectors()]) {
      it(`decodes and re-encodes ${v.name} to exactly the vector's bytes`, async () => {
        // `result` is the reply's last key, so the reply ends with the re-encoded value.
        expect((await echoed(v.bytes)).endsWith(toHex(v.bytes))).toBe(true);
      });
    }

    if (options.ask) {
      for (const v of loadEnvelopeVectors().filter((e) => e.kind === "reply" && (e.decoded as { outcome?: string }).outcome === "ask")) {
        it(`builds ${v.name} with the SDK's ask builder, exactly the vector's bytes`, async () => {
          const reason = (v.decoded as { reason: string }).reason;
          const r = await sandbox.invokeBytes(echo, encode({ abi: "1.2", point: "test.ask", payload: { value: reason } }), { timeoutMs: 2000, raw: true });
          if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
          expect(toHex(r.replyBytes!)).toBe(toHex(v.bytes));
          expect(r.outcome).toStrictEqual({ kind: "ask", reason });
        });
      }
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

    it("gives back any text it is sent, ASCII or not, whatever its length", async () => {
      // Valid Unicode only: the ABI's strings are UTF-8, and a lone surrogate has no UTF-8 form.
      const text = fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: "grapheme", maxLength: 60 }), fc.string({ unit: fc.constantFrom("a", "é", "中", "😀"), maxLength: 60 }));
      await fc.assert(fc.asyncProperty(text, async (t) => {
        const r = await sandbox.invokeBytes(echo, echoRequest(encode(t)), { timeoutMs: 2000 });
        expect(r.ok && r.outcome).toStrictEqual({ kind: "short_circuit", result: t });
      }), { numRuns: 150 });
    });

    for (const v of loadInvalidVectors()) {
      it(`ends the invocation with GUEST_ABORTED for ${v.name}: ${v.reason}`, async () => {
        const r = await sandbox.invokeBytes(echo, echoRequest(v.bytes), { timeoutMs: 2000 });
        expect(r.ok).toBe(false);
        if (!r.ok) {
          expect(r.error.code).toBe("GUEST_ABORTED");
          expect(r.error.message).toContain("malformed request");
        }
      });
    }

    if (options.truncation) {
      it("never traps on any truncation of a vector: every prefix is refused cleanly", async () => {
        const small = [...loadCodecVectors(), ...loadEnvelopeVectors()].filter((v) => v.bytes.length <= 600);
        const codes = new Set<string>();
        for (const v of small) {
          const planned = [];
          for (let i = 0; i < v.bytes.length; i++) planned.push({ module: echo, request: echoRequest(v.bytes.subarray(0, i)) });
          for (const r of await sandbox.runCalls(planned)) codes.add(r.ok ? "ok" : r.error.code);
        }
        expect([...codes]).toStrictEqual(["GUEST_ABORTED"]);
      });
    }
  });
}
