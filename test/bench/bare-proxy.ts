/**
 * The floors under scenarios 12 and 16: a pass-through proxy with no Sluice code, in a child
 * process of its own like `sluice serve`: node:http in front, an undici Pool to the upstream,
 * the JSON body parsed and written again both ways (as any gateway that reads the payload
 * must). What it adds over a direct call is what the extra hop costs on this machine, before
 * anything Sluice does.
 *
 * Started with `promises` as well, it also keeps what `sluice serve` promises by default, each
 * done the plainest way, with the libraries Sluice uses and none of its code (no Fastify, no
 * engine, no journal, no events, no metrics, no hooks):
 * - the caller's key checked against SQLite before the body is read, revocation immediate (a
 *   verified key remembered with the table's revocation generation, read on every request);
 * - a record on disk before the upstream is asked and its ending on disk before the answer
 *   goes out (nothing called twice after a crash, nothing answered unrecorded): two plain
 *   statements on a table with nothing but its primary key, in WAL mode with `synchronous =
 *   NORMAL` as the records store runs, the writes of one turn of the event loop committed
 *   together (a lone one at once);
 * - the record sealed at rest (AES-256-GCM, a fresh nonce, its row as associated data);
 * - one JSON access line per request (pino, at info, to a file).
 * What that adds is the least a gateway keeping those promises adds on this machine.
 *
 * Started with `promises-hook`, it also runs hooks in worker threads (a JavaScript e-mail
 * redaction, two such workers, one postMessage round trip a call) where scenario 12's three
 * hooks and scenario 16's pii-redact run: the last message's text before the upstream is
 * asked, the answer's text after it (once the real answer is on disk, as a crash in the
 * after stage must not ask the upstream again), and each streamed event's text: the least
 * isolated hooks add, without any guest ABI, WebAssembly or limits.
 *
 * Started with the upstream's origin (and `promises`); answers {port}, then {cpuUs} (its
 * process's CPU time, every thread) to each "cpu" message.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createCipheriv, createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { pino } from "pino";
import { Pool } from "undici";
import { Worker } from "node:worker_threads";

const [upstream, mode] = process.argv.slice(2);
if (!upstream || (mode !== undefined && mode !== "promises" && mode !== "promises-hook") || !process.send) throw new Error("usage: fork bare-proxy.js <upstream origin> [promises | promises-hook] (with an IPC channel)");
const pool = new Pool(upstream, { connections: 256 });
const dir = mode ? mkdtempSync(join(tmpdir(), "sluice-bench-floor-")) : undefined;
const records = dir ? durableWrites(dir) : undefined;
const keys = dir ? keyCheck(dir, "sk-direct") : undefined;
const hook = mode === "promises-hook" ? textHook(2) : undefined;
const log = dir ? pino({ level: "info", base: { service: "floor" } }, pino.destination({ dest: join(dir, "access.log"), sync: true })) : undefined;

const server = createServer(async (req, res) => {
  const id = randomUUID();
  const t0 = performance.now();
  if (log) res.once("finish", () => log.info({ reqId: id, req: { method: req.method, url: req.url, remoteAddress: req.socket.remoteAddress }, res: { statusCode: res.statusCode }, responseTime: performance.now() - t0 }, "request completed"));
  try {
    if (keys && !keys.verify(/^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1] ?? "")) { res.writeHead(401).end(); return; }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const request = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { messages?: { content?: unknown }[]; stream?: boolean };
    const last = request.messages?.at(-1);
    if (hook && !request.stream && last && typeof last.content === "string") last.content = await hook(last.content);
    const body = JSON.stringify(request);
    await records?.write(id, "running", body);
    const r = await pool.request({ path: req.url ?? "/", method: "POST", headers: { "content-type": "application/json" }, body });
    if (String(r.headers["content-type"]).startsWith("text/event-stream")) {
      // A stream is relayed as its bytes arrive (scenario 16's floor), each piece written at once.
      res.writeHead(r.statusCode, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      let length = 0;
      if (hook) {
        // Event by event: each one's text through the hook, then written.
        let text = "";
        for await (const piece of r.body) {
          length += (piece as Buffer).byteLength;
          text += (piece as Buffer).toString("utf8");
          for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n")) {
            const frame = text.slice(0, end);
            text = text.slice(end + 2);
            const data = frame.startsWith("data: ") ? frame.slice(6) : frame;
            if (data === "[DONE]") { res.write("data: [DONE]\n\n"); continue; }
            const event = JSON.parse(data) as { choices?: { delta?: { content?: unknown } }[] };
            const delta = event.choices?.[0]?.delta;
            if (delta && typeof delta.content === "string") delta.content = await hook(delta.content);
            res.write(`data: ${JSON.stringify(event)}\n\n`);
          }
        }
      } else {
        for await (const piece of r.body) { length += (piece as Buffer).byteLength; res.write(piece); }
      }
      // The ending goes on disk before the last byte: a stream's end is its answer.
      await records?.write(id, "succeeded", JSON.stringify({ streamed: length }));
      res.end();
      return;
    }
    const answer = (await r.body.json()) as { choices?: { message?: { content?: unknown } }[] };
    const message = answer.choices?.[0]?.message;
    if (hook && message && typeof message.content === "string") {
      await records?.write(id, "result", JSON.stringify(answer));
      message.content = await hook(message.content);
    }
    const out = JSON.stringify(answer);
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
process.on("SIGTERM", () => { records?.close(); keys?.close(); if (dir) rmSync(dir, { recursive: true, force: true }); process.exit(0); });

/** A text hook in `n` worker threads, taken in turn: each call one message there and one back. */
function textHook(n: number): (text: string) => Promise<string> {
  const source = `const { parentPort } = require("node:worker_threads");
    const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}/g;
    parentPort.on("message", (m) => parentPort.postMessage({ id: m.id, text: m.text.replace(EMAIL, "[email]") }));`;
  const workers = Array.from({ length: n }, () => new Worker(source, { eval: true }));
  const waiting = new Map<number, (text: string) => void>();
  for (const w of workers) w.on("message", (m: { id: number; text: string }) => { waiting.get(m.id)?.(m.text); waiting.delete(m.id); });
  let sent = 0;
  return (text) => new Promise((resolve) => {
    const id = ++sent;
    waiting.set(id, resolve);
    workers[id % n]!.postMessage({ id, text });
  });
}

/** Keys by their sha256, the verified ones remembered while the revocation generation stands still. */
function keyCheck(dir: string, key: string): { verify(key: string): boolean; close(): void } {
  const db = new Database(join(dir, "keys.db"));
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE keys (sha256 TEXT PRIMARY KEY, space_id TEXT NOT NULL, revoked_at TEXT); CREATE TABLE generation (id INTEGER PRIMARY KEY, n INTEGER NOT NULL); INSERT INTO generation VALUES (1, 0)");
  const sha256 = (k: string) => createHash("sha256").update(k).digest("hex");
  db.prepare("INSERT INTO keys (sha256, space_id) VALUES (?, ?)").run(sha256(key), "space-bench");
  const generation = db.prepare("SELECT n FROM generation WHERE id = 1").pluck();
  const byHash = db.prepare("SELECT space_id FROM keys WHERE sha256 = ? AND revoked_at IS NULL").pluck();
  const verified = new Map<string, number>();
  return {
    verify(k) {
      const n = generation.get() as number;
      if (verified.get(k) === n) return true;
      if (byHash.get(sha256(k)) === undefined) return false;
      verified.set(k, n);
      return true;
    },
    close: () => db.close(),
  };
}

/** One write of a request's record: "running" inserts it, any other status ends it. */
interface RecordWrite { id: string; status: string; record: string }

/** A record per request, sealed: inserted "running", then its ending; each write resolves once committed. */
function durableWrites(dir: string): { write(id: string, status: string, record: string): Promise<void>; close(): void } {
  const db = new Database(join(dir, "records.db"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec("CREATE TABLE operations (id TEXT PRIMARY KEY, status TEXT NOT NULL, record TEXT NOT NULL)");
  const insert = db.prepare("INSERT INTO operations (id, status, record) VALUES (?, ?, ?)");
  const update = db.prepare("UPDATE operations SET status = ?, record = ? WHERE id = ?");
  const key = randomBytes(32);
  const seal = (id: string, json: string): string => {
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", key, nonce);
    cipher.setAAD(Buffer.from(`operations.record\u0000${id}`, "utf8"));
    const body = Buffer.concat([cipher.update(json, "utf8"), cipher.final()]);
    return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64");
  };
  const one = (w: RecordWrite) => {
    const sealed = seal(w.id, JSON.stringify({ id: w.id, status: w.status, at: Date.now(), record: w.record }));
    return w.status === "running" ? insert.run(w.id, w.status, sealed) : update.run(w.status, sealed, w.id);
  };
  const all = db.transaction((ws: RecordWrite[]) => { for (const w of ws) one(w); });
  let batch: (RecordWrite & { done: () => void })[] = [];
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
    close() { db.close(); },
  };
}
