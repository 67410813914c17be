/**
 * Tool calls started one a millisecond, every records write on the writer thread, each tool
 * writing its operation id to `called` and never returning: writer-crash.test.ts SIGKILLs
 * this process while batches are on the thread.
 * `node dist/test/records/writer-crash-child.js <dir>`.
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { createHost, openSqliteRecords } from "../../host/index.js";
import { call, ctx, DIGEST_SECRET } from "./scenarios.js";

const dir = process.argv[2]!;
const records = openSqliteRecords(join(dir, "records.db"), { writerThread: "always" });
const host = createHost({ workers: 1, records, digestSecret: DIGEST_SECRET });
host.activate({ revision: 1, bindings: [] });
let n = 0;
setInterval(() => {
  for (let i = 0; i < 4; i++) {
    void host.tool(ctx, { ...call, callId: `call-${n++}` }, async (_args, op) => {
      appendFileSync(join(dir, "called"), `${op.operationId}\n`);
      return new Promise<never>(() => {});
    });
  }
}, 1);
