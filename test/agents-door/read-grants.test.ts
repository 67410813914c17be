/**
 * What a guest receives of a coding agent's event is what its read grant allows: the
 * agent's working directory and transcript path only when the grant names them. The
 * kv-record-request fixture keeps the request bytes it was given, so these tests read what
 * a guest really saw, through the split tool call the agents' door drives.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decode } from "../../abi/codec.js";
import type { RequestEnvelope } from "../../abi/envelope.js";
import { createHost, createMemoryRecords, type Host } from "../../host/index.js";
import { SqliteKvStore } from "../../host/sandbox/kv/sqlite-kv-store.js";
import type { ToolCall } from "../../host/boundary/tool.js";
import { fixture } from "../helpers/fixtures.js";

const CWD = "/home/dev/secret-project";
const TRANSCRIPT = "/home/dev/.claude/projects/secret/t.jsonl";
const call: ToolCall = {
  toolId: "shell", name: "Bash", schema: { type: "object" }, arguments: { command: "ls" }, callId: "toolu_1",
  agent: { name: "claude-code", event: "PreToolUse", session_id: "s1", cwd: CWD, transcript_path: TRANSCRIPT },
};

let host: Host;
let kv: SqliteKvStore;
beforeAll(async () => {
  host = createHost({ workers: 1, records: createMemoryRecords(), quarantine: false });
  await host.loadPlugin({ id: "ungranted", version: "1.0.0", wasm: fixture("kv-record-request"), capabilities: ["kv"] });
  await host.loadPlugin({ id: "parent", version: "1.0.0", wasm: fixture("kv-record-request"), capabilities: ["kv"], grants: { "tool.before": { read: ["/agent", "/arguments"] } } });
  await host.loadPlugin({ id: "cwd-only", version: "1.0.0", wasm: fixture("kv-record-request"), capabilities: ["kv"], grants: { "tool.before": { read: ["/agent/cwd", "/arguments"] } } });
  kv = new SqliteKvStore(host.sandbox.options.kvPath);
});
afterAll(async () => { kv.close(); await host.close(); });

async function seenBy(pluginId: string): Promise<RequestEnvelope> {
  host.activate({ revision: Date.now(), bindings: [{ id: `b-${pluginId}`, hookRef: `${pluginId}@1.0.0`, point: "tool.before" }] });
  const r = await host.toolBefore({ spaceId: "team-a", runId: "s1" }, call);
  expect(r.ok).toBe(true);
  const bytes = kv.get(`team-a\u0000${pluginId}`, new TextEncoder().encode("req"));
  if (!bytes) throw new Error(`${pluginId} recorded nothing`);
  return decode(bytes) as RequestEnvelope;
}

describe("a coding agent's event, as a guest receives it", () => {
  it("carries the agent, its event and session, but not its working directory or transcript path, to a plugin with no read grant", async () => {
    const req = await seenBy("ungranted");
    expect(req.payload.agent).toEqual({ name: "claude-code", event: "PreToolUse", session_id: "s1" });
    expect(req.payload.arguments).toEqual({ command: "ls" });
  });

  it("withholds them from a grant of /agent, their parent", async () => {
    const req = await seenBy("parent");
    expect(req.payload).toEqual({ agent: { name: "claude-code", event: "PreToolUse", session_id: "s1" }, arguments: { command: "ls" } });
  });

  it("sends the working directory to a plugin whose grant names /agent/cwd, and still not the transcript path", async () => {
    const req = await seenBy("cwd-only");
    expect(req.payload).toEqual({ agent: { cwd: CWD }, arguments: { command: "ls" } });
  });
});
