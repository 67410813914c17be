/**
 * What the README's adapter examples take as given ("your model", "your MCP client"):
 * each framework's own test model or an in-memory MCP server, answering without network.
 * Imported by the modules test/adapters/readme-examples.test.ts builds from README.md.
 */
import { MockLanguageModelV4 } from "ai/test";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { Usage, type Model, type ModelResponse, type StreamEvent } from "@openai/agents";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { z } from "zod";

export const ANSWER = "Your order ships today.";

export const aiSdkModel = new MockLanguageModelV4({
  doGenerate: async () => ({
    content: [{ type: "text", text: ANSWER }], finishReason: { unified: "stop", raw: "stop" }, warnings: [],
    usage: { inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } },
  }),
});

export const langchainModel = new FakeListChatModel({ responses: [ANSWER] });

const output = [{ type: "message" as const, role: "assistant" as const, status: "completed" as const, content: [{ type: "output_text" as const, text: ANSWER }] }];
export const agentsModel: Model = {
  async getResponse(): Promise<ModelResponse> {
    return { usage: new Usage({ requests: 1, inputTokens: 3, outputTokens: 5, totalTokens: 8 }), output };
  },
  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    yield { type: "output_text_delta", delta: ANSWER };
    yield { type: "response_done", response: { id: "r1", usage: new Usage({ requests: 1, inputTokens: 3, outputTokens: 5, totalTokens: 8 }), output } };
  },
};

/** A connected client of an in-memory MCP server with one tool, `orders.search`. */
export async function mcpUpstream(): Promise<Client> {
  const server = new McpServer({ name: "orders", version: "1.0.0" });
  server.registerTool("orders.search", { description: "Search orders", inputSchema: { query: z.string(), limit: z.number().int() } },
    async ({ query, limit }) => ({ content: [{ type: "text", text: `${limit} orders for ${query}` }] }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "proxy", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}
