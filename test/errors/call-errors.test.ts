// Each message a cancelled or closed call ends with is written once, in host/errors/call-errors.ts:
// no file under host/ writes one of these texts itself.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/fixtures.js";
import * as factories from "../../host/errors/call-errors.js";

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
  });
}

const messages = Object.values(factories).map((f) => {
  const made = (f as (r?: unknown) => { message: string })("aborted");
  return made.message;
});

describe("the messages of cancelled and closed calls", () => {
  it("come from one factory each: the texts are distinct", () => {
    expect(new Set(messages).size).toBe(messages.length);
  });

  it("are written nowhere in host/ but beside the catalogue", () => {
    const writers = files(join(repoRoot, "host")).filter((f) => !f.endsWith("call-errors.ts") && messages.some((m) => readFileSync(f, "utf8").includes(`"${m}"`)));
    expect(writers).toEqual([]);
  });
});
