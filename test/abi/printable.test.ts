import { describe, expect, it } from "vitest";
import { printableBytes, printableText } from "../../abi/printable.js";

const bytes = (...b: number[]) => new Uint8Array(b);

describe("a guest's bytes as printable text", () => {
  it("keeps printable UTF-8, accents and emoji included, as it is", () => {
    expect(printableBytes(new TextEncoder().encode("limit must be positive é 🚀"))).toBe("limit must be positive é 🚀");
  });

  it("escapes control characters, bytes that are not UTF-8, overlong forms and encoded surrogates", () => {
    expect(printableBytes(bytes(0x1b, 0x5b, 0x0a, 0xff, 0xc0, 0x80, 0xed, 0xa0, 0x80))).toBe("\\x1b[\\x0a\\xff\\xc0\\x80\\xed\\xa0\\x80");
  });

  it("escapes the backslash, so an escape in the output always came from the host", () => {
    expect(printableText("a\\x41")).toBe("a\\\\x41");
  });

  it("escapes invisible code points and lone surrogates in decoded text", () => {
    expect(printableText("a\u200eb\ud800c\u2028")).toBe("a\\u{200e}b\\u{d800}c\\u{2028}");
  });

  it("is bounded, ends in an ellipsis when cut, and never splits an escape", () => {
    const out = printableBytes(new Uint8Array(5000).fill(0xff), 100);
    expect(out.length).toBeLessThanOrEqual(100);
    expect(out.endsWith("\\xff…")).toBe(true);
    expect(printableText("x".repeat(5000), 10)).toBe("xxxxxxxxx…");
  });
});
