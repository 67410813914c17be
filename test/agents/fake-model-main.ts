/**
 * The fake model as a process, for a test whose agent runs in a network namespace the test
 * cannot reach: `node dist/test/agents/fake-model-main.js <record-file> <command>` prints
 * `fake model listening on <url>`, then rewrites <record-file> whole (to a temporary name,
 * then renamed) after every request with what the model was asked and told.
 */
import { renameSync, writeFileSync } from "node:fs";
import { startFakeModel } from "./fake-model.js";

const [record, command] = process.argv.slice(2);
if (!record || !command) throw new Error("usage: fake-model-main.js <record-file> <command>");
let save = () => {};
const model = await startFakeModel({ command }, 0, () => save());
save = () => {
  writeFileSync(`${record}.tmp`, JSON.stringify({ requests: model.requests, toolCalls: model.toolCalls }));
  renameSync(`${record}.tmp`, record);
};
save();
const stop = () => { save(); void model.close().then(() => process.exit(0)); };
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
process.stdout.write(`fake model listening on ${model.url}\n`);
