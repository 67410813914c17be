/**
 * What a core module declares that the engine allocates outside linear memory: tables,
 * functions, globals, types, element and data segments, tags, locals. V8 builds these on
 * the worker's JavaScript heap or in native memory when a module is instantiated, and some
 * of those allocations abort the whole process instead of failing (a 10,000,000-entry
 * funcref table does). The host reads the shape once at load, before compiling, so every
 * such resource is bounded statically; the signature of every export is read too.
 */
import { branchTables, type BranchTables } from "./branch-tables.js";
import { BinaryFormatError, importsOf, readName, readS32, readU32, sectionsOf, type Cursor, type ImportEntry } from "../wasm-binary.js";

const SECTION = { type: 1, import: 2, function: 3, table: 4, memory: 5, global: 6, export: 7, start: 8, element: 9, code: 10, data: 11, tag: 13 } as const;
const VALTYPES: Readonly<Record<number, string>> = { 0x7f: "i32", 0x7e: "i64", 0x7d: "f32", 0x7c: "f64", 0x7b: "v128", 0x70: "funcref", 0x6f: "externref" };
const EXPORT_KINDS = ["function", "table", "memory", "global", "tag"] as const;

export interface TableShape { index: number; element: string; initial: number; maximum?: number }
export interface ExportShape { name: string; kind: (typeof EXPORT_KINDS)[number]; index: number; signature?: string }

export interface ModuleShape {
  types: string[];
  imports: ImportEntry[];
  /** Type index of every function the module defines (imported functions come first in the index space). */
  functions: number[];
  tables: TableShape[];
  globals: number;
  exports: ExportShape[];
  elementSegments: number;
  elementEntries: number;
  dataSegments: number;
  /**
   * Where the last byte an active data segment writes ends (0 without any): what
   * instantiation writes into a zeroed memory lies below it. Undefined when a segment's
   * offset is anything but an `i32.const` (the host then never reuses the module's instances).
   */
  dataEnd: number | undefined;
  tags: number;
  /** Locals declared by the function body with the most, and its index among defined functions. */
  maxLocals: { count: number; function: number };
  /** The largest function body in bytes, and its index among defined functions. */
  maxBodyBytes: { size: number; function: number };
  /** The targets of the code's br_table instructions (branch-tables.ts). */
  branchTables: BranchTables;
}

function valtype(c: Cursor): string {
  const t = c.bytes[c.pos++];
  const name = t === undefined ? undefined : VALTYPES[t];
  if (!name) throw new BinaryFormatError(`unsupported value type 0x${(t ?? 0).toString(16)}`);
  return name;
}

function readLimits(c: Cursor): { initial: number; maximum?: number } {
  const flags = readU32(c);
  if (flags > 1) throw new BinaryFormatError(`unsupported table limits flags ${flags}`);
  const initial = readU32(c);
  return flags === 1 ? { initial, maximum: readU32(c) } : { initial };
}

function skipLeb(c: Cursor): void {
  for (let i = 0; i < 10; i++) {
    if (c.pos >= c.bytes.length) throw new BinaryFormatError("unexpected end of module");
    if ((c.bytes[c.pos++]! & 0x80) === 0) return;
  }
  throw new BinaryFormatError("LEB128 integer too long");
}

/** Skips a constant expression (global initialisers, segment offsets and element items). */
function skipConstExpr(c: Cursor): void {
  for (;;) {
    const op = c.bytes[c.pos++];
    switch (op) {
      case 0x0b: return;
      case 0x41: case 0x42: skipLeb(c); break;
      case 0x43: c.pos += 4; break;
      case 0x44: c.pos += 8; break;
      case 0x23: case 0xd2: readU32(c); break;
      case 0xd0: c.pos += 1; break;
      case 0x6a: case 0x6b: case 0x6c: case 0x7c: case 0x7d: case 0x7e: break;
      case 0xfd: if (readU32(c) !== 12) throw new BinaryFormatError("unsupported constant expression"); c.pos += 16; break;
      default: throw new BinaryFormatError(`unsupported constant expression opcode 0x${(op ?? 0).toString(16)}`);
    }
    if (c.pos > c.bytes.length) throw new BinaryFormatError("unexpected end of module");
  }
}

function countOf(bytes: Uint8Array, contentStart: number): number {
  return readU32({ bytes, pos: contentStart });
}

function elementEntries(c: Cursor): { segments: number; entries: number } {
  const segments = readU32(c);
  let entries = 0;
  for (let s = 0; s < segments; s++) {
    const flags = readU32(c);
    if (flags > 7) throw new BinaryFormatError(`unsupported element segment flags ${flags}`);
    const passiveOrDeclarative = (flags & 1) !== 0;
    const explicitTable = (flags & 2) !== 0;
    const usesExprs = (flags & 4) !== 0;
    if (!passiveOrDeclarative && explicitTable) readU32(c);
    if (!passiveOrDeclarative) skipConstExpr(c);
    if (passiveOrDeclarative || explicitTable) c.pos += 1; // elemkind or reftype
    const n = readU32(c);
    entries += n;
    for (let i = 0; i < n; i++) usesExprs ? skipConstExpr(c) : readU32(c);
  }
  return { segments, entries };
}

/** Reads an i32.const offset expression's value, as an unsigned address; undefined for any other expression (skipped). */
function constOffset(c: Cursor): number | undefined {
  const at = c.pos;
  if (c.bytes[c.pos] === 0x41) {
    c.pos++;
    const value = readS32(c);
    if (c.bytes[c.pos] === 0x0b) { c.pos++; return value >>> 0; }
    c.pos = at;
  }
  skipConstExpr(c);
  return undefined;
}

function dataEnd(c: Cursor): number | undefined {
  let end: number | undefined = 0;
  for (let n = readU32(c); n > 0; n--) {
    const flags = readU32(c);
    if (flags === 2) readU32(c);
    const offset = flags === 1 ? undefined : constOffset(c);
    const size = readU32(c);
    c.pos += size;
    if (flags === 1) continue;
    end = offset === undefined || end === undefined ? undefined : Math.max(end, offset + size);
  }
  return end;
}

/** Reads the module's declared shape. The module must already have passed WebAssembly.validate. */
export function moduleShape(bytes: Uint8Array): ModuleShape {
  const shape: ModuleShape = {
    types: [], imports: [], functions: [], tables: [], globals: 0, exports: [],
    elementSegments: 0, elementEntries: 0, dataSegments: 0, dataEnd: 0, tags: 0,
    maxLocals: { count: 0, function: -1 }, maxBodyBytes: { size: 0, function: -1 },
    branchTables: { total: 0, largest: { targets: 0, function: -1 } },
  };
  for (const section of sectionsOf(bytes)) {
    const c: Cursor = { bytes, pos: section.contentStart };
    switch (section.id) {
      case SECTION.type:
        for (let n = readU32(c); n > 0; n--) {
          if (bytes[c.pos++] !== 0x60) throw new BinaryFormatError("unsupported type form");
          const list = (): string => { const items: string[] = []; for (let k = readU32(c); k > 0; k--) items.push(valtype(c)); return `(${items.join(",")})`; };
          const params = list();
          shape.types.push(`${params}->${list()}`);
        }
        break;
      case SECTION.import: shape.imports = importsOf(bytes, section); break;
      case SECTION.function: for (let n = readU32(c); n > 0; n--) shape.functions.push(readU32(c)); break;
      case SECTION.table: {
        const first = shape.imports.filter((i) => i.kind === 1).length;
        for (let n = readU32(c), i = 0; i < n; i++) {
          const element = VALTYPES[bytes[c.pos++]!] ?? "?";
          shape.tables.push({ index: first + i, element, ...readLimits(c) });
        }
        break;
      }
      case SECTION.global: shape.globals = countOf(bytes, section.contentStart); break;
      case SECTION.export:
        for (let n = readU32(c); n > 0; n--) {
          const name = readName(c);
          const kind = EXPORT_KINDS[bytes[c.pos++]!];
          if (!kind) throw new BinaryFormatError(`unknown export kind in "${name}"`);
          shape.exports.push({ name, kind, index: readU32(c) });
        }
        break;
      case SECTION.element: { const e = elementEntries(c); shape.elementSegments = e.segments; shape.elementEntries = e.entries; break; }
      case SECTION.data: shape.dataSegments = countOf(bytes, section.contentStart); shape.dataEnd = dataEnd(c); break;
      case SECTION.tag: shape.tags = countOf(bytes, section.contentStart); break;
      case SECTION.code:
        for (let n = readU32(c), f = 0; f < n; f++) {
          const size = readU32(c);
          const end = c.pos + size;
          if (size > shape.maxBodyBytes.size) shape.maxBodyBytes = { size, function: f };
          let locals = 0;
          for (let k = readU32(c); k > 0; k--) { locals += readU32(c); c.pos += 1; }
          if (locals > shape.maxLocals.count) shape.maxLocals = { count: locals, function: f };
          c.pos = end;
        }
        shape.branchTables = branchTables(bytes, section.contentStart);
        break;
      default: break;
    }
  }
  const importedFunctions = shape.imports.filter((i) => i.kind === 0);
  const signatureOf = (index: number): string | undefined => {
    const typeIndex = index < importedFunctions.length ? importedFunctions[index]!.typeIndex : shape.functions[index - importedFunctions.length];
    return typeIndex === undefined ? undefined : shape.types[typeIndex];
  };
  for (const e of shape.exports) if (e.kind === "function") { const s = signatureOf(e.index); if (s) e.signature = s; }
  return shape;
}
