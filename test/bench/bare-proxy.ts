/**
 * The floors under scenarios 12 and 16: a pass-through proxy with no Sluice code, in a child
 * process of its own like `sluice serve`: node:http in front, an undici Pool to the upstream,
 * the JSON body parsed and written again both ways (as any gateway that reads the payload
 * must). What it adds over a direct call is what the extra hop costs on this machine, before
 * anything Sluice does.
 *
 * Started with `records` as well, it also keeps the one promise no implementation of
 * `sluice serve`'s can drop: a record on disk before the upstream is asked and its ending on
 * disk before the answer goes out (nothing called twice after a crash, nothing answered
 * unrecorded). Two plain statements on a table with nothing but its primary key, in WAL mode
 * with `synchronous = NORMAL` as the records store runs, the writes asked for in one turn of
 * the event loop committed together (a lone one at once); no sealing, no audit, no journal.
 * What that adds is the least any gateway with the crash promise adds here.
 *
 * Started with the upstream's origin (and `records`); answers {port}, then {cpuUs} (its
 * process's CPU time, every thread) to each "cpu" message.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Pool } from "undici";

const [upstream, mode] = process.argv.slice(2);
if (!upstream || (mode !== undefined && mode !== "records") || !process.send) throw new Error("usage: fork bare-proxy.js <upstream origin> [records] (with an IPC channel)");
const pool = new Pool(upstream, { connections: 256 });
const records = mode === "records" ? durableWrites() : undefined;

const server = createServer(async (req, res) => {
  const id = randomUUID();
  try {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const request = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
    const body = JSON.stringify(request);
    await records?.write(id, "running", body);
    const r = await pool.request({ path: req.url ?? "/", method: "POST", headers: { "content-type": "application/json" }, body });
    if (String(r.headers["content-type"]).startsWith("text/event-stream")) {
      // A stream is relayed as its bytes arrive (scenario 16's floor), each piece written at once.
      res.writeHead(r.statusCode, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      let length = 0;
      for await (const piece of r.body) { length += (piece as Buffer).byteLength; res.write(piece); }
      // The ending goes on disk before the last byte: a stream's end is its answer.
      await records?.write(id, "succeeded", JSON.stringify({ streamed: length }));
      res.end();
      return;
    }
    const out = JSON.stringify(await r.body.json());
    await records?.write(id, "succeeded", out);
    res.writeHead(r.statusCode, { "content-type": "application/json", "content-length": Buffer.byteLength(out) });
    res.end(out);
  } catch (err) {
    res.writeHead(502).end(String(err));
  }
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => process.send!({ port: (server.address() as AddressInfo).port }));
process.on("message", (m) => {
  if (m !== "cpu") return;
  const u = process.cpuUsage();
  process.send!({ cpuUs: u.user + u.system });
});
process.on("SIGTERM", () => { records?.close(); process.exit(0); });

/** A record per request: inserted "running", then its ending; each write resolves once committed. */
function durableWrites(): { write(id: string, status: string, record: string): Promise<void>; close(): void } {
  const dir = mkdtempSync(join(tmpdir(), "sluice-bench-floor-"));
  const db = new Database(join(dir, "records.db"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec("CREATE TABLE operations (id TEXT PRIMARY KEY, status TEXT NOT NULL, record TEXT NOT NULL)");
  const insert = db.prepare("INSERT INTO operations (id, status, record) VALUES (?, ?, ?)");
  const update = db.prepare("UPDATE operations SET status = ?, record = ? WHERE id = ?");
  const one = (w: { id: string; status: string; record: string }) => (w.status === "running" ? insert.run(w.id, w.status, w.record) : update.run(w.status, w.record, w.id));
  const all = db.transaction((ws: { id: string; status: string; record: string }[]) => { for (const w of ws) one(w); });
  let batch: { id: string; status: string; record: string; done: () => void }[] = [];
  let turn = false;
  return {
    write(id, status, record) {
      return new Promise<void>((done) => {
        // The first write of a turn is committed at once; the others of that turn together, after it.
        if (!turn) {
          turn = true;
          setImmediate(() => { turn = false; const ws = batch; batch = []; if (ws.length > 0) { all(ws); for (const w of ws) w.done(); } });
          one({ id, status, record });
          done();
          return;
        }
        batch.push({ id, status, record, done });
      });
    },
    close() { db.close(); rmSync(dir, { recursive: true, force: true }); },
  };
}
