/**
 * Wraps an AssemblyScript hook built against the core ABI as a component of the
 * `sluice:hook` world (`jco embed` + `jco new`, in-process). Used by the build for test
 * fixtures and the benchmark; hook authors in other languages use their own toolchain.
 *
 * The core module must export `cm_realloc(old, oldSize, align, size) -> ptr` and
 * `cm_handle(ptr, len) -> retptr` (see test/fixtures/components/cm.ts). AssemblyScript
 * cannot export names containing `:` or `#`, so this renames them to the canonical ABI's
 * names, and renames the import module `sluice_v1` to the world's host interface: the
 * lowered signatures of `log(u8, string)` and `abort(string)` are exactly the core ABI's
 * `log(i32, ptr, len)` and `abort(ptr, len)`.
 */
import { componentEmbed, componentNew } from "@bytecodealliance/jco";
import { hookWit, HANDLER_INTERFACE, HOST_INTERFACE } from "./wit.js";

const RENAME_EXPORTS: Record<string, string> = {
  cm_realloc: "cabi_realloc",
  cm_handle: `${HANDLER_INTERFACE}#handle`,
};

interface Cursor { b: Uint8Array; p: number }
function u32(c: Cursor): number {
  let r = 0;
  for (let s = 0; ; s += 7) {
    const x = c.b[c.p++]!;
    r += (x & 0x7f) * 2 ** s;
    if (!(x & 0x80)) return r;
  }
}
function leb(n: number): number[] {
  const o: number[] = [];
  do { let x = n & 0x7f; n = Math.floor(n / 128); if (n) x |= 0x80; o.push(x); } while (n);
  return o;
}
const enc = new TextEncoder();
const dec = new TextDecoder();
function name(c: Cursor): string { const n = u32(c); const s = dec.decode(c.b.subarray(c.p, c.p + n)); c.p += n; return s; }
function putName(s: string): number[] { const b = enc.encode(s); return [...leb(b.length), ...b]; }

/** Rewrites names in the import (2) and export (7) sections; keeps only the renamed exports and `memory`. */
function rewriteNames(input: Uint8Array): Uint8Array {
  const parts: number[][] = [[...input.subarray(0, 8)]];
  const c: Cursor = { b: input, p: 8 };
  while (c.p < input.length) {
    const start = c.p;
    const id = input[c.p++]!;
    const size = u32(c);
    const end = c.p + size;
    if (id === 2) {
      const out: number[] = [];
      const n = u32(c);
      for (let i = 0; i < n; i++) {
        const mod = name(c);
        const field = name(c);
        const descStart = c.p;
        const kind = input[c.p++]!;
        if (kind !== 0) throw new Error(`wrapCore: only function imports are supported (${mod}.${field})`);
        u32(c);
        out.push(...putName(mod === "sluice_v1" ? HOST_INTERFACE : mod), ...putName(field), ...input.subarray(descStart, c.p));
      }
      const body = [...leb(n), ...out];
      parts.push([2, ...leb(body.length), ...body]);
    } else if (id === 7) {
      const kept: number[][] = [];
      const n = u32(c);
      for (let i = 0; i < n; i++) {
        const field = name(c);
        const kind = input[c.p++]!;
        const index = u32(c);
        const renamed = field === "memory" ? field : RENAME_EXPORTS[field];
        if (renamed) kept.push([...putName(renamed), kind, ...leb(index)]);
      }
      const body = [...leb(kept.length), ...kept.flat()];
      parts.push([7, ...leb(body.length), ...body]);
    } else {
      parts.push([...input.subarray(start, end)]);
    }
    c.p = end;
  }
  return Uint8Array.from(parts.flat());
}

/**
 * Returns a component made from an AssemblyScript core module (see the file comment), of
 * world `hook` by default. `extraWit` is appended to the sluice:hook package source (tests
 * use it to declare worlds that import more than the host serves).
 */
export async function wrapCore(core: Uint8Array, options: { world?: string; extraWit?: string } = {}): Promise<Uint8Array> {
  const witSource = `${hookWit()}\n${options.extraWit ?? ""}`;
  const embedded = await componentEmbed({ binary: rewriteNames(core), witSource, world: options.world ?? "hook", stringEncoding: "utf8" });
  return componentNew(embedded);
}
