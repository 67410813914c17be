/**
 * Guest workers run at a lower CPU priority than the host's own threads (workerNice), so
 * on a machine whose cores are all busy the event loop, the watchdog and the API come first.
 * Read from the kernel: the nice value of every thread of this process.
 */
import { readdirSync, readFileSync } from "node:fs";
import { getPriority } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../../host/sandbox/index.js";
import { fixture, BACKSTOP_FUEL } from "../helpers/fixtures.js";
import { request } from "../helpers/requests.js";

let sandbox: Sandbox | undefined;
afterEach(async () => { await sandbox?.close(); sandbox = undefined; });

/** Threads of this process by nice value (field 19 of /proc/<pid>/task/<tid>/stat). */
function threadsAtNice(nice: number): number {
  let n = 0;
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const fields = readFileSync(`/proc/self/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ");
      if (Number(fields[16]) === nice) n++;
    } catch { /* the thread ended while we listed */ }
  }
  return n;
}

describe("worker priority", () => {
  it("every worker thread, spares included, runs at the host's priority plus workerNice; the host's thread keeps its own", async () => {
    sandbox = createSandbox({ workers: 2, spareWorkers: 1, workerNice: 7 });
    await sandbox.ready();
    expect(threadsAtNice(7)).toBe(3);
    expect(getPriority(0)).toBe(0);
  });

  it("the default lowers workers by 10", async () => {
    sandbox = createSandbox({ workers: 1, spareWorkers: 0 });
    await sandbox.ready();
    expect(threadsAtNice(10)).toBe(1);
  });

  it("a replacement for a terminated worker starts at the same lower priority", async () => {
    sandbox = createSandbox({ workers: 1, spareWorkers: 0, workerNice: 6 });
    await sandbox.ready();
    const loop = await sandbox.load(fixture("loop"), { limits: { timeoutMs: 30, fuel: BACKSTOP_FUEL } });
    const r = await sandbox.invoke(loop, request());
    expect(!r.ok && r.error.code).toBe("GUEST_TIMEOUT");
    await sandbox.ready();
    const ok = await sandbox.invoke(await sandbox.load(fixture("continue")), request());
    expect(ok.ok).toBe(true);
    expect(threadsAtNice(6)).toBe(1);
  });

  it("workerNice 0 leaves the workers at the host's priority", async () => {
    const before = threadsAtNice(0);
    sandbox = createSandbox({ workers: 2, spareWorkers: 0, workerNice: 0 });
    await sandbox.ready();
    expect(threadsAtNice(0)).toBeGreaterThanOrEqual(before + 2);
    expect(threadsAtNice(10)).toBe(0);
  });

  it.each([-1, 20, 1.5, Number.NaN])("refuses workerNice %s with CONFIG_INVALID naming it", (workerNice) => {
    expect(() => createSandbox({ workerNice })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", message: expect.stringContaining("workerNice") }));
  });
});
