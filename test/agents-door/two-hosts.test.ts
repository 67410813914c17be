// A tool call's before event reaching one host and its after event another, both on one PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RequestEnvelope } from "../../abi/envelope.js";
import { startApiServer } from "../../host/api/server.js";
import { GatewayKeys } from "../../host/keys/keys.js";
import { Registry } from "../../host/registry/registry.js";
import { tempDir } from "../registry/fixtures.js";
import { testDatabaseUrl } from "../helpers/postgres.js";
import { raw } from "../api/server-helpers.js";

const TOKEN = "two-hosts-door-token-0123456789abcdefgh";

interface Side { registry: Registry; keys: GatewayKeys; url: string; port: number; dataDir: string; seen: RequestEnvelope[]; close: () => Promise<void> }

async function side(database: string): Promise<Side> {
  const dataDir = tempDir();
  const registry = await Registry.open({ dataDir, database, digestSecret: "fleet-digest-key-0123456789abcdef", hostOptions: { workers: 1 } });
  const seen: RequestEnvelope[] = [];
  registry.host.registerHook("seen", (r) => { seen.push(r); return { kind: "continue" }; });
  registry.host.activate({ revision: 1, bindings: [{ id: "before", hookRef: "seen", point: "tool.before" }, { id: "after", hookRef: "seen", point: "tool.after" }] });
  const keys = new GatewayKeys(registry.shared!.gatewayKeys);
  const server = await startApiServer({ registry, token: TOKEN, gatewayKeys: keys, agentDoor: registry.shared!.agentDoor, logger: false, port: 0 });
  return { registry, keys, url: server.url, port: Number(new URL(server.url).port), dataDir, seen, close: async () => { await server.close(); await registry.close(); } };
}

describe("the agents' door on two hosts sharing one PostgreSQL", () => {
  let a: Side;
  let b: Side;
  let key: string;
  beforeAll(async () => {
    const database = await testDatabaseUrl("agent-door-fleet");
    a = await side(database);
    b = await side(database);
    key = (await a.keys.create({ spaceId: "fleet", scope: "hooks" })).key;
  });
  afterAll(async () => { await a?.close(); await b?.close(); });

  const post = (s: Side, agent: string, event: string, body: unknown) => raw(s, "POST", `/v1/agent-hooks/${agent}/${event}`, { host: `127.0.0.1:${s.port}`, "content-type": "application/json", authorization: `Bearer ${key}` }, JSON.stringify(body));

  it("ends on one host the operation the other host opened, once", async () => {
    const pre = { session_id: "fleet-s", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "toolu_fleet" };
    expect((await post(a, "claude-code", "PreToolUse", pre)).body).toEqual({});
    const opened = String(a.seen.at(-1)!.context.operation_id);
    const after = { ...pre, hook_event_name: "PostToolUse", tool_response: { stdout: "src\n" } };
    expect((await post(b, "claude-code", "PostToolUse", after)).status).toBe(200);
    expect(b.seen.at(-1)).toMatchObject({ point: "tool.after", context: { operation_id: opened, run_id: "fleet-s" }, payload: { result: { stdout: "src\n" } } });
    const record = await a.registry.host.records!.get(opened!);
    expect(record).toMatchObject({ phase: "finished", realStatus: "succeeded" });
    const afterHooks = a.seen.length + b.seen.length;
    expect((await post(a, "claude-code", "PostToolUse", after)).body).toEqual({});
    expect(a.seen.length + b.seen.length).toBe(afterHooks);
  });

  it("pairs Gemini's events, which carry no tool-use id, across the hosts first in, first out", async () => {
    const pre = (n: number) => ({ session_id: "fleet-g", hook_event_name: "BeforeTool", tool_name: "run_shell_command", tool_input: { command: "date" }, n });
    await post(a, "gemini-cli", "BeforeTool", pre(1));
    const first = a.seen.at(-1)!.context.operation_id;
    await post(b, "gemini-cli", "BeforeTool", pre(2));
    const second = b.seen.at(-1)!.context.operation_id;
    await post(b, "gemini-cli", "AfterTool", { ...pre(1), hook_event_name: "AfterTool", tool_response: { llmContent: "one" } });
    expect(b.seen.at(-1)!.context.operation_id).toBe(first);
    await post(a, "gemini-cli", "AfterTool", { ...pre(2), hook_event_name: "AfterTool", tool_response: { llmContent: "two" } });
    expect(a.seen.at(-1)!.context.operation_id).toBe(second);
  });

  it("reports the fleet's events on either host", async () => {
    const status = await raw(b, "GET", "/api/v1/agents/status", { host: `127.0.0.1:${b.port}`, authorization: `Bearer ${TOKEN}` });
    const pre = status.body.events.find((e: { agent: string; event: string }) => e.agent === "claude-code" && e.event === "PreToolUse");
    expect(pre).toMatchObject({ count: 1, lastOutcome: "continue" });
  });
});
