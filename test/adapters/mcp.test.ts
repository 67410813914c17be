/** sluice/mcp: the guarding proxy between an MCP client and an upstream MCP server, over in-memory transports. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { createMcpProxy } from "sluice/mcp";
import { adapterHost, EMAIL, leaks, type AdapterHost } from "./setup.js";

let h: AdapterHost;
let upstream: Client;
let agent: Client;
/** Every JSON-RPC message the agent's client received from the proxy, as sent. */
const received: string[] = [];
const calls: { name: string; args: unknown }[] = [];

async function linked(server: { connect(t: InMemoryTransport): Promise<void> }, client: Client, record?: string[]): Promise<void> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  if (record) {
    const deliver = clientSide.onmessage!;
    clientSide.onmessage = (message, extra) => { record.push(JSON.stringify(message)); deliver(message, extra); };
  }
}

beforeAll(async () => {
  h = await adapterHost();
  const tools = new McpServer({ name: "orders", version: "1.0.0" });
  tools.registerTool("orders.search", { description: "Search orders", inputSchema: { query: z.string(), limit: z.number().int() } }, async (args) => {
    calls.push({ name: "orders.search", args });
    return { content: [{ type: "text", text: `${args.limit} orders for ${args.query}` }] };
  });
  tools.registerTool("customer.lookup", { description: "A customer's contact", inputSchema: { id: z.string() } }, async (args) => {
    calls.push({ name: "customer.lookup", args });
    return { content: [{ type: "text", text: `customer ${args.id}: ${EMAIL}` }], structuredContent: { id: args.id, email: EMAIL } };
  });
  tools.registerTool("orders.cancel", { description: "Cancel an order", inputSchema: { id: z.string() } }, async (args) => {
    calls.push({ name: "orders.cancel", args });
    return { content: [{ type: "text", text: `order ${args.id} is shipped; ask ${EMAIL}` }], isError: true };
  });
  upstream = new Client({ name: "proxy-side", version: "1.0.0" });
  await linked(tools, upstream);
  agent = new Client({ name: "agent", version: "1.0.0" });
  await linked(createMcpProxy({ host: h.host, upstream, context: { spaceId: "space-a" } }), agent, received);
});
afterAll(async () => { await agent.close(); await upstream.close(); await h.close(); });
beforeEach(() => { calls.length = 0; received.length = 0; });

const call = (name: string, args: Record<string, unknown>) => agent.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const facts = (r: CallToolResult) => r._meta?.["sluice/operation"] as Record<string, unknown>;

describe("sluice/mcp", () => {
  it("passes tools/list through unchanged", async () => {
    expect(await agent.listTools()).toEqual(await upstream.listTools());
  });

  it("clamps a tool argument in tool.before: the upstream tool gets the clamped value", async () => {
    h.bind([{ hookRef: "order-search-limit@1.0.0", point: "tool.before", config: { max_limit: 100 }, match: { toolIds: ["orders.search"] } }]);
    const r = await call("orders.search", { query: "shoes", limit: 500 });
    expect(calls).toEqual([{ name: "orders.search", args: { query: "shoes", limit: 100 } }]);
    expect(r.content).toEqual([{ type: "text", text: "100 orders for shoes" }]);
    expect(facts(r)).toMatchObject({ realStatus: "succeeded" });
  });

  it("redacts a tool result in tool.after: no message the client received carries the e-mail", async () => {
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "tool.after" }]);
    const r = await call("customer.lookup", { id: "c7" });
    expect(calls).toHaveLength(1);
    expect(r.content).toEqual([{ type: "text", text: "customer c7: [email]" }]);
    expect(r.structuredContent).toEqual({ id: "c7", email: "[email]" });
    expect(received.length).toBeGreaterThan(0);
    expect(received.filter(leaks)).toEqual([]);
  });

  it("maps an isError result to a failed real call, its text redacted like any view", async () => {
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "tool.after" }]);
    const r = await call("orders.cancel", { id: "o1" });
    expect(r.isError).toBe(true);
    expect(facts(r)).toMatchObject({ realStatus: "failed", code: "OPERATION_FAILED" });
    expect(r.content).toEqual([{ type: "text", text: expect.stringContaining("order o1 is shipped; ask [email]") }]);
    expect(received.filter(leaks)).toEqual([]);
  });

  it("a rejected call never reaches the upstream and comes back as an error result naming the binding", async () => {
    h.bind([{ id: "no-cancel", point: "tool.before", config: { mode: "reject", code: "policy.denied", reason: "cancelling is not allowed" }, match: { toolIds: ["orders.cancel"] } }]);
    const r = await call("orders.cancel", { id: "o1" });
    expect(calls).toEqual([]);
    expect(r).toMatchObject({ isError: true, content: [{ type: "text", text: "rejected by binding no-cancel: policy.denied cancelling is not allowed" }] });
    expect(facts(r)).toMatchObject({ realStatus: "not_started", code: "HOOK_REJECTED" });
  });

  it("a short-circuit serves the hook's result without calling the upstream", async () => {
    const cached = { content: [{ type: "text", text: "3 orders for shoes (cached)" }] };
    h.bind([{ id: "cache", point: "tool.before", config: { mode: "short_circuit", result: cached } }]);
    const r = await call("orders.search", { query: "shoes", limit: 3 });
    expect(calls).toEqual([]);
    expect(r.content).toEqual(cached.content);
    expect(facts(r)).toMatchObject({ realStatus: "not_started", shortCircuitedBy: "cache" });
  });

  it("arguments that fail the tool's schema after the hooks never reach the upstream", async () => {
    h.bind([]);
    const r = await call("orders.search", { query: "shoes", limit: "many" });
    expect(calls).toEqual([]);
    expect(r.isError).toBe(true);
  });

  it("refuses a tool the upstream does not offer with an MCP error", async () => {
    await expect(call("orders.delete", {})).rejects.toThrow(/orders\.delete is not offered/);
  });
});
