/**
 * A benign guest with many functions, built byte by byte (a .wat of 100,000 functions would
 * be megabytes of text): the `continue` guest's three functions plus filler functions whose
 * bodies are `bodyBytes` long, `count` functions in all. Used by the upload tests and bench scenario 8.
 */
const leb = (n: number): number[] => { const o: number[] = []; do { let b = n & 0x7f; n = Math.floor(n / 128); if (n) b |= 0x80; o.push(b); } while (n); return o; };
const str = (s: string): number[] => [...leb(s.length), ...Buffer.from(s)];
const section = (id: number, content: number[] | Uint8Array): Uint8Array => Uint8Array.from([id, ...leb(content.length), ...content]);

export function manyFunctionsModule(total: number, bodyBytes = 4): Uint8Array {
  const count = total - 3;
  const types = section(1, [3, 0x60, 0, 0, 0x60, 1, 0x7f, 1, 0x7f, 0x60, 2, 0x7f, 0x7f, 1, 0x7e]);
  const fnTypes = [0, 1, 2, ...Array<number>(count).fill(0)];
  const functions = section(3, [...leb(fnTypes.length), ...fnTypes]);
  const memory = section(5, [1, 0, 1]);
  const exports = section(7, [4, ...str("memory"), 2, 0, ...str("sluice_abi_v1_0"), 0, 0, ...str("sluice_alloc"), 0, 1, ...str("sluice_handle"), 0, 2]);
  // An extra body: no locals, (bodyBytes - 2) nops, end.
  const filler = [...leb(bodyBytes), 0, ...Array<number>(bodyBytes - 2).fill(0x01), 0x0b];
  const marker = [2, 0, 0x0b];
  const alloc = [5, 0, 0x41, 0x80, 0x08, 0x0b];
  // (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 26))
  const handle = [10, 0, 0x42, 16, 0x42, 32, 0x86, 0x42, 26, 0x84, 0x0b];
  const bodiesLength = marker.length + alloc.length + handle.length + filler.length * count;
  const countBytes = leb(fnTypes.length);
  const code = new Uint8Array(1 + leb(countBytes.length + bodiesLength).length + countBytes.length + bodiesLength);
  let at = 0;
  const put = (bytes: ArrayLike<number>): void => { code.set(bytes, at); at += bytes.length; };
  put([10, ...leb(countBytes.length + bodiesLength), ...countBytes]);
  put(marker); put(alloc); put(handle);
  const one = Uint8Array.from(filler);
  for (let i = 0; i < count; i++) put(one);
  const data = section(11, [1, 0, 0x41, 16, 0x0b, 26, 0x82, 0xa3, ...Buffer.from("abi"), 0xa3, ...Buffer.from("1.0"), 0xa7, ...Buffer.from("outcome"), 0xa8, ...Buffer.from("continue")]);
  const parts = [Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]), types, functions, memory, exports, code, data];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}
