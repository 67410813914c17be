// The messages a call ends with when the worker pool decides (a timeout, a dead worker, a full
// queue, a spent restart budget) are written once, in host/errors/worker-errors.ts.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/fixtures.js";
import { guestTimedOut, notCompleted, queueFull, restartLimited, workerDied, workersFailToStart } from "../../host/errors/worker-errors.js";

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** The fixed words of each message, up to its first value. */
const fragments = [
  workersFailToStart().message,
  workerDied(0, "x").message.split(":")[0]!,
  guestTimedOut(0, 1).message.split(" 1 ")[1]!,
  queueFull(1).message.split(" (")[0]!,
  restartLimited("m").message,
  notCompleted({ code: "GUEST_TIMEOUT", message: "m" }).message.split(" (")[0]!,
];

describe("the messages of calls the worker pool ends", () => {
  it("name what happened, with the codes callers match on", () => {
    expect(guestTimedOut(2, 50)).toEqual({ code: "GUEST_TIMEOUT", message: "guest call 2 ran past its 50 ms limit; its worker was terminated", details: { call: 2, limitMs: 50 } });
    expect(workersFailToStart("boom").message).toBe("worker threads fail to start: boom");
    expect(restartLimited("m/1").details).toEqual({ moduleId: "m/1" });
    expect(notCompleted({ code: "GUEST_TIMEOUT", message: "m" })).toMatchObject({ code: "GUEST_TIMEOUT", details: { causedBy: "GUEST_TIMEOUT" } });
  });

  it("are written nowhere in host/ but beside the catalogue", () => {
    expect(fragments.every((f) => f.length >= 10)).toBe(true);
    const writers = files(join(repoRoot, "host")).filter((f) => !f.endsWith("worker-errors.ts") && fragments.some((m) => readFileSync(f, "utf8").includes(m)));
    expect(writers).toEqual([]);
  });
});
