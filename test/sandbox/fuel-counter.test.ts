import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import wabtInit from "wabt";
import { ACCESSOR, fuelCounter, fuelUsed } from "../../host/sandbox/loader/fuel/counter.js";
import { HOST_MAX_LIMITS } from "../../host/sandbox/limits.js";

describe("the fuel counter's accessor", () => {
  it("is the module its source comment shows, compiled", async () => {
    const source = readFileSync(new URL("../../host/sandbox/loader/fuel/counter.ts", import.meta.url), "utf8");
    const wat = source.split("\n").filter((l) => /^ \* {1,3}\(/.test(l)).map((l) => l.slice(3)).join("\n");
    expect(wat.startsWith("(module")).toBe(true);
    const wabt = await wabtInit();
    expect(Buffer.from(wabt.parseWat("accessor.wat", wat).toBinary({}).buffer).toString("base64")).toBe(ACCESSOR);
  });

  it("sets and reads the global guests import, exactly, from the host maximum to a deep overdraft", () => {
    const fuel = fuelCounter();
    fuel.set(HOST_MAX_LIMITS.fuel);
    expect(fuel.global.value).toBe(BigInt(HOST_MAX_LIMITS.fuel));
    // What a guest does: its charges write the global; the host reads what is left.
    fuel.global.value = -(2n ** 44n) - 3n;
    expect(fuel.remaining()).toBe(-(2 ** 44) - 3);
    expect(fuelUsed(HOST_MAX_LIMITS.fuel, fuel)).toBe(HOST_MAX_LIMITS.fuel + 2 ** 44 + 3);
  });
});
