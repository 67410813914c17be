/**
 * The records' writer thread keeps the promise of every records write: a tool is called
 * only once its "running" record is committed. A host process writing every record on the
 * thread, new tool calls starting all the time, is SIGKILLed with batches on the thread; on
 * restart every tool that was called has its record, and comes back unknown.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createHost, openSqliteRecords } from "../../host/index.js";
import { repoRoot } from "../helpers/fixtures.js";
import { until } from "../helpers/until.js";
import { DIGEST_SECRET } from "./scenarios.js";

const calledIds = (dir: string): string[] => (existsSync(join(dir, "called")) ? readFileSync(join(dir, "called"), "utf8").split("\n").filter(Boolean) : []);

it("a SIGKILL with batches on the writer thread: every tool that was called has its record, and comes back unknown", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sluice-writer-crash-"));
  try {
    const child = spawn(process.execPath, [join(repoRoot, "dist/test/records/writer-crash-child.js"), dir], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => { stderr += String(d); });
    const exited = once(child, "exit");
    expect(await until(() => calledIds(dir).length >= 200 || child.exitCode !== null), stderr).toBe(true);
    child.kill("SIGKILL");
    expect((await exited)[1], stderr).toBe("SIGKILL");
    const called = calledIds(dir);
    expect(called.length).toBeGreaterThanOrEqual(200);

    const records = openSqliteRecords(join(dir, "records.db"));
    const host = createHost({ workers: 1, records, digestSecret: DIGEST_SECRET });
    try {
      const recovered = new Set(await host.recover());
      for (const id of called) {
        expect(recovered.has(id), id).toBe(true);
        expect(await records.get(id), id).toMatchObject({ phase: "operation", realStatus: "unknown" });
      }
      // Records committed whose tool had not been called yet are unknown too, never lost or resumed.
      expect((await records.list({ realStatus: "running" }))).toEqual([]);
    } finally {
      await host.close();
      await records.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
