/**
 * Just enough of the WebAssembly binary format to cap a module's memory before it is
 * compiled. Worker resourceLimits do not bound wasm memory, so the bound must live in the
 * module itself: we rewrite the memory section's maximum.
 */
const MAGIC = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
const MEMORY_SECTION = 5;

export class BinaryFormatError extends Error {}

export interface Cursor { bytes: Uint8Array; pos: number }

export function readU32(c: Cursor): number {
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

/** A signed LEB128 32-bit integer (an `i32.const` operand), at most five bytes. */
export function readS32(c: Cursor): number {
  let result = 0;
  let shift = 0;
  let b = 0;
  do {
    if (c.pos >= c.bytes.length) throw new BinaryFormatError("unexpected end of module");
    if (shift >= 35) throw new BinaryFormatError("LEB128 integer too long");
    b = c.bytes[c.pos++]!;
    result |= (b & 0x7f) << shift;
    shift += 7;
  } while (b & 0x80);
  return shift < 32 && b & 0x40 ? result | (-1 << shift) : result;
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

export interface Section { id: number; start: number; contentStart: number; end: number }

/** The module's sections, in order, after checking the header and every section's bounds. */
export function sectionsOf(input: Uint8Array): Section[] {
  if (input.length < 8 || MAGIC.some((b, i) => input[i] !== b)) throw new BinaryFormatError("not a WebAssembly module (bad magic or version)");
  const sections: Section[] = [];
  const c: Cursor = { bytes: input, pos: 8 };
  while (c.pos < input.length) {
    const start = c.pos;
    const id = input[c.pos++]!;
    const size = readU32(c);
    const contentStart = c.pos;
    const end = contentStart + size;
    if (end > input.length) throw new BinaryFormatError("section runs past the end of the module");
    sections.push({ id, start, contentStart, end });
    c.pos = end;
  }
  return sections;
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
  const memory = sectionsOf(input).find((s) => s.id === MEMORY_SECTION);
  if (!memory) return { bytes: input, memoryCount: 0 };
  const c: Cursor = { bytes: input, pos: memory.contentStart };
  const count = readU32(c);
  if (count !== 1) return { bytes: input, memoryCount: count };
  const flags = readU32(c);
  if (flags > 1) return { bytes: input, memoryCount: 1, unsupported: flags & 2 ? "shared memory" : "64-bit memory" };
  const initial = readU32(c);
  const declaredMax = flags === 1 ? readU32(c) : undefined;
  if (c.pos !== memory.end) throw new BinaryFormatError("memory section has trailing bytes");
  const max = Math.min(maxPages, declaredMax ?? maxPages);
  const content = [...writeU32(1), 0x01, ...writeU32(initial), ...writeU32(max)];
  return { bytes: replaceSection(input, memory, content), initialPages: initial, memoryCount: 1 };
}

const IMPORT_SECTION = 2;
/** Where the host hands a guest its memory; guests may not import it themselves. */
export const HOST_MEMORY_IMPORT = { module: "sluice_host", name: "memory" } as const;

export interface HostMemoryResult {
  bytes: Uint8Array;
  initialPages: number;
  maxPages: number;
}

export function readName(c: Cursor): string {
  const len = readU32(c);
  if (c.pos + len > c.bytes.length) throw new BinaryFormatError("name runs past the end of the module");
  const s = new TextDecoder().decode(c.bytes.subarray(c.pos, c.pos + len));
  c.pos += len;
  return s;
}

function skipLimits(c: Cursor): void {
  const flags = readU32(c);
  readU32(c);
  if (flags & 1) readU32(c);
}

/** `name` is "module.field", for messages; `module` and `field` are the two names as the binary gives them. */
export interface ImportEntry { name: string; module: string; field: string; kind: number; typeIndex?: number }

/** The import section's entries ("module.name", kind, and a function's type index). */
export function importsOf(bytes: Uint8Array, section: Section): ImportEntry[] {
  const c: Cursor = { bytes, pos: section.contentStart };
  const found: ImportEntry[] = [];
  for (let n = readU32(c); n > 0; n--) {
    const module = readName(c);
    const field = readName(c);
    const name = `${module}.${field}`;
    const kind = bytes[c.pos++]!;
    if (kind === 0) found.push({ name, module, field, kind, typeIndex: readU32(c) });
    else if (kind === 1) { c.pos++; skipLimits(c); found.push({ name, module, field, kind }); }
    else if (kind === 2) { skipLimits(c); found.push({ name, module, field, kind }); }
    else if (kind === 3) { c.pos += 2; found.push({ name, module, field, kind }); }
    else if (kind === 4) { c.pos++; readU32(c); found.push({ name, module, field, kind }); }
    else throw new BinaryFormatError(`unknown import kind ${kind}`);
    if (c.pos > section.end) throw new BinaryFormatError("import section runs past its end");
  }
  return found;
}

/**
 * Turns the module's own memory into an import of {@link HOST_MEMORY_IMPORT} with the same
 * initial size and a maximum of at most `maxPages`. The host can then hand each invocation
 * a zeroed memory from a pool instead of creating one (creating a WebAssembly.Memory is
 * most of the cost of a fresh instance), while every invocation still starts from the
 * same state: a new instance, a zeroed memory of the declared size, data segments applied.
 * Returns undefined when the module defines no single plain memory (the caller refuses it).
 */
export function hostMemory(input: Uint8Array, maxPages: number): HostMemoryResult | { refused: string } {
  const sections = sectionsOf(input);
  const imports = sections.find((s) => s.id === IMPORT_SECTION);
  const imported = imports ? importsOf(input, imports).filter((i) => i.kind === 2).map((i) => i.name) : [];
  if (imported.length > 0) return { refused: `imports memory "${imported[0]}"` };
  const memory = sections.find((s) => s.id === MEMORY_SECTION);
  if (!memory) return { refused: "defines no memory" };
  const m: Cursor = { bytes: input, pos: memory.contentStart };
  const count = readU32(m);
  if (count !== 1) return { refused: `defines ${count} memories` };
  const flags = readU32(m);
  if (flags > 1) return { refused: flags & 2 ? "uses shared memory" : "uses 64-bit memory" };
  const initial = readU32(m);
  const declaredMax = flags === 1 ? readU32(m) : undefined;
  if (m.pos !== memory.end) throw new BinaryFormatError("memory section has trailing bytes");
  const max = Math.min(maxPages, declaredMax ?? maxPages);

  const enc = new TextEncoder();
  const entry = [
    ...writeU32(HOST_MEMORY_IMPORT.module.length), ...enc.encode(HOST_MEMORY_IMPORT.module),
    ...writeU32(HOST_MEMORY_IMPORT.name.length), ...enc.encode(HOST_MEMORY_IMPORT.name),
    0x02, 0x01, ...writeU32(initial), ...writeU32(max),
  ];
  let importSection: number[];
  if (imports) {
    const ic: Cursor = { bytes: input, pos: imports.contentStart };
    const n = readU32(ic);
    const content = [...writeU32(n + 1), ...input.subarray(ic.pos, imports.end), ...entry];
    importSection = [IMPORT_SECTION, ...writeU32(content.length), ...content];
  } else {
    const content = [...writeU32(1), ...entry];
    importSection = [IMPORT_SECTION, ...writeU32(content.length), ...content];
  }
  // Known sections must stay in order: the import section goes after the type section.
  const insertBefore = imports ?? sections.find((s) => s.id !== 0 && s.id !== 1);
  const parts: Uint8Array[] = [input.subarray(0, 8)];
  let inserted = false;
  for (const s of sections) {
    if (s === insertBefore && !inserted) { parts.push(Uint8Array.from(importSection)); inserted = true; }
    if (s === imports || s === memory) continue;
    parts.push(input.subarray(s.start, s.end));
  }
  if (!inserted) parts.push(Uint8Array.from(importSection));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return { bytes: out, initialPages: initial, maxPages: max };
}

const TABLE_SECTION = 4;

function replaceSection(input: Uint8Array, section: Section, content: number[]): Uint8Array {
  const head = [section.id, ...writeU32(content.length)];
  const out = new Uint8Array(section.start + head.length + content.length + (input.length - section.end));
  out.set(input.subarray(0, section.start), 0);
  out.set(head, section.start);
  out.set(content, section.start + head.length);
  out.set(input.subarray(section.end), section.start + head.length + content.length);
  return out;
}

/**
 * Returns the module with every table it defines given a maximum of at most `maxEntries`,
 * so `table.grow` past the plugin's limit fails inside the guest (returns -1), as the
 * memory maximum does for `memory.grow`. Initial sizes above the limit are refused before.
 */
export function capTables(input: Uint8Array, maxEntries: number): Uint8Array {
  const table = sectionsOf(input).find((s) => s.id === TABLE_SECTION);
  if (!table) return input;
  const c: Cursor = { bytes: input, pos: table.contentStart };
  const count = readU32(c);
  const content = [...writeU32(count)];
  for (let i = 0; i < count; i++) {
    const element = input[c.pos++]!;
    const flags = readU32(c);
    if (flags > 1) throw new BinaryFormatError(`unsupported table limits flags ${flags}`);
    const initial = readU32(c);
    const declaredMax = flags === 1 ? readU32(c) : undefined;
    content.push(element, 0x01, ...writeU32(initial), ...writeU32(Math.min(maxEntries, declaredMax ?? maxEntries)));
  }
  if (c.pos !== table.end) throw new BinaryFormatError("table section has trailing bytes");
  return replaceSection(input, table, content);
}
