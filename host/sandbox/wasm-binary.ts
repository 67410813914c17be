/**
 * Just enough of the WebAssembly binary format to cap a module's memory before it is
 * compiled. Worker resourceLimits do not bound wasm memory, so the bound must live in the
 * module itself: we rewrite the memory section's maximum.
 */
const MAGIC = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
const MEMORY_SECTION = 5;

export class BinaryFormatError extends Error {}

interface Cursor { bytes: Uint8Array; pos: number }

function readU32(c: Cursor): number {
  let result = 0;
  let shift = 0;
  for (let i = 0; i < 5; i++) {
    if (c.pos >= c.bytes.length) throw new BinaryFormatError("unexpected end of module");
    const b = c.bytes[c.pos++]!;
    result += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return result;
    shift += 7;
  }
  throw new BinaryFormatError("LEB128 integer too long");
}

function writeU32(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

export interface MemoryCapResult {
  bytes: Uint8Array;
  /** Pages the module declares as initial memory; undefined when it defines none. */
  initialPages?: number;
  memoryCount: number;
  unsupported?: string;
}

/** Returns the module with its (single, defined) memory's maximum set to at most `maxPages`. */
export function capMemory(input: Uint8Array, maxPages: number): MemoryCapResult {
  if (input.length < 8 || MAGIC.some((b, i) => input[i] !== b)) throw new BinaryFormatError("not a WebAssembly module (bad magic or version)");
  const c: Cursor = { bytes: input, pos: 8 };
  while (c.pos < input.length) {
    const sectionStart = c.pos;
    const id = input[c.pos++]!;
    const size = readU32(c);
    const contentStart = c.pos;
    const end = contentStart + size;
    if (end > input.length) throw new BinaryFormatError("section runs past the end of the module");
    if (id !== MEMORY_SECTION) { c.pos = end; continue; }

    const count = readU32(c);
    if (count !== 1) return { bytes: input, memoryCount: count };
    const flags = readU32(c);
    if (flags > 1) return { bytes: input, memoryCount: 1, unsupported: flags & 2 ? "shared memory" : "64-bit memory" };
    const initial = readU32(c);
    const declaredMax = flags === 1 ? readU32(c) : undefined;
    if (c.pos !== end) throw new BinaryFormatError("memory section has trailing bytes");
    const max = Math.min(maxPages, declaredMax ?? maxPages);
    const content = [...writeU32(1), 0x01, ...writeU32(initial), ...writeU32(max)];
    const section = [MEMORY_SECTION, ...writeU32(content.length), ...content];
    const out = new Uint8Array(sectionStart + section.length + (input.length - end));
    out.set(input.subarray(0, sectionStart), 0);
    out.set(section, sectionStart);
    out.set(input.subarray(end), sectionStart + section.length);
    return { bytes: out, initialPages: initial, memoryCount: 1 };
  }
  return { bytes: input, memoryCount: 0 };
}
