/**
 * The floor under scenarios 12 and 16: a pass-through proxy with no Sluice code, in a child process
 * of its own like `sluice serve`: node:http in front, an undici Pool to the upstream, the
 * JSON body parsed and written again both ways (as any gateway that reads the payload must).
 * What it adds over a direct call is what the extra hop costs on this machine, before
 * anything Sluice does. Started with the upstream's origin; answers {port}, then {cpuUs}
 * (its process's CPU time, every thread) to each "cpu" message.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Pool } from "undici";

const upstream = process.argv[2];
if (!upstream || !process.send) throw new Error("usage: fork bare-proxy.js <upstream origin> (with an IPC channel)");
const pool = new Pool(upstream, { connections: 256 });
const server = createServer(async (req, res) => {
  try {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString("utf8")));
    const r = await pool.request({ path: req.url ?? "/", method: "POST", headers: { "content-type": "application/json" }, body });
    if (String(r.headers["content-type"]).startsWith("text/event-stream")) {
      // A stream is relayed as its bytes arrive (scenario 16's floor), each piece written at once.
      res.writeHead(r.statusCode, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      for await (const piece of r.body) res.write(piece);
      res.end();
      return;
    }
    const out = JSON.stringify(await r.body.json());
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
