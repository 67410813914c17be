import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import wabtInit from "wabt";
import { BRIDGE } from "../../host/sandbox/worker/host-bridge.js";

describe("the host bridge module", () => {
  it("is the module its source comment shows, compiled", async () => {
    const source = readFileSync(new URL("../../host/sandbox/worker/host-bridge.ts", import.meta.url), "utf8");
    const wat = source.split("\n").filter((l) => /^ \* {1,3}\(/.test(l)).map((l) => l.slice(3)).join("\n");
    expect(wat.startsWith("(module")).toBe(true);
    const wabt = await wabtInit();
    const compiled = wabt.parseWat("bridge.wat", wat).toBinary({}).buffer;
    expect(Buffer.from(compiled).toString("base64")).toBe(BRIDGE);
  });
});
