/**
 * The gateway upstream as a process inside the test's network namespace:
 * `node dist/test/agents/gateway-upstream-main.js <record-file> <command>` prints
 * `gateway upstream listening on <url>`; a line `relay <gateway origin>` on stdin opens the
 * relay to the gateway and prints `relay listening on <url>`. After every event it rewrites
 * <record-file> whole (to a temporary name, then renamed) with its record.
 */
import { renameSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { startGatewayUpstream } from "./gateway-upstream.js";

const [file, command] = process.argv.slice(2);
if (!file || !command) throw new Error("usage: gateway-upstream-main.js <record-file> <command>");
let save = () => {};
const upstream = await startGatewayUpstream(command, () => save());
save = () => {
  writeFileSync(`${file}.tmp`, JSON.stringify(upstream.record));
  renameSync(`${file}.tmp`, file);
};
save();
createInterface({ input: process.stdin }).on("line", (line) => {
  const [verb, target] = line.trim().split(/\s+/);
  if (verb === "relay" && target) void upstream.relay(target).then((url) => process.stdout.write(`relay listening on ${url}\n`));
});
const stop = () => { save(); void upstream.close().then(() => process.exit(0)); };
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
process.stdout.write(`gateway upstream listening on ${upstream.url}\n`);
