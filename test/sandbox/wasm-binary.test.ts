// The signed LEB128 reader behind data-segment offsets (wasm-shape.ts), against the encodings
// the spec allows: shortest forms, padded forms, both signs, and the five-byte limit.
import { describe, expect, it } from "vitest";
import { BinaryFormatError, readS32 } from "../../host/sandbox/wasm-binary.js";

const read = (bytes: number[]) => { const c = { bytes: Uint8Array.from(bytes), pos: 0 }; return { value: readS32(c), pos: c.pos }; };

describe("readS32", () => {
  it("reads shortest and padded encodings of both signs, stopping after the last byte", () => {
    expect(read([0x00])).toEqual({ value: 0, pos: 1 });
    expect(read([0x3f])).toEqual({ value: 63, pos: 1 });
    expect(read([0x40])).toEqual({ value: -64, pos: 1 });
    expect(read([0x7f])).toEqual({ value: -1, pos: 1 });
    expect(read([0xc0, 0xbb, 0x78])).toEqual({ value: -123456, pos: 3 });
    expect(read([0xc0, 0xb8, 0x02, 0x0b])).toEqual({ value: 40000, pos: 3 });
    expect(read([0x80, 0x80, 0x80, 0x80, 0x00])).toEqual({ value: 0, pos: 5 });
    expect(read([0xff, 0xff, 0xff, 0xff, 0x07])).toEqual({ value: 2147483647, pos: 5 });
    expect(read([0x80, 0x80, 0x80, 0x80, 0x78])).toEqual({ value: -2147483648, pos: 5 });
  });

  it("refuses a sixth byte and a truncated integer", () => {
    expect(() => read([0x80, 0x80, 0x80, 0x80, 0x80, 0x00])).toThrow(BinaryFormatError);
    expect(() => read([0x80, 0x80])).toThrow(BinaryFormatError);
  });
});
