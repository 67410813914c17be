/**
 * /v1/responses as Codex sends it by default (store false, reasoning items with their
 * encrypted_content, include, a namespace tool and the hosted web_search tool among its
 * function tools), from the official openai client, against a chat-completions upstream:
 * what the upstream cannot run is dropped, recorded and shown to the hooks, never refused,
 * and the hooks still judge and redact the text.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import type { RequestEnvelope } from "../../abi/envelope.js";
import { createMemoryRecords } from "../../host/index.js";
import { answerOf } from "./upstream-stub.js";
import { startGateway, type GatewayUnderTest } from "./setup.js";

const records = createMemoryRecords();
let gw: GatewayUnderTest;
const seen: RequestEnvelope[] = [];
beforeAll(async () => {
  gw = await startGateway({ records });
  gw.host.registerHook("spy", (req) => { seen.push(req); return { kind: "continue" }; });
});
afterAll(() => gw.close());

const SHELL = { type: "function", name: "shell", description: "Runs a shell command and returns its output.", strict: false, parameters: { type: "object", properties: { command: { type: "array", items: { type: "string" } }, workdir: { type: "string" } }, required: ["command"], additionalProperties: false } };
const PLAN = { type: "function", name: "update_plan", description: "Updates the task plan.", strict: false, parameters: { type: "object", properties: { plan: { type: "array", items: { type: "object" } } }, required: ["plan"], additionalProperties: false } };

/** Codex's default turn: its developer and environment messages, a prior turn with encrypted reasoning, and its default tools. */
function codexTurn(prompt: string) {
  return {
    model: "gpt-5-codex",
    instructions: "You are Codex, a coding agent.",
    input: [
      { type: "message", role: "developer", content: [{ type: "input_text", text: "<permissions instructions>sandbox: workspace-write</permissions instructions>" }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "<environment_context><cwd>/work</cwd></environment_context>" }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "list the files" }] },
      { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Listing." }], encrypted_content: "gAAAAABpZ...opaque..." },
      { type: "function_call", call_id: "call_a", name: "shell", arguments: "{\"command\":[\"ls\"]}" },
      { type: "function_call_output", call_id: "call_a", output: "README.md" },
      { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "sluice" } },
      { type: "message", role: "user", content: [{ type: "input_text", text: prompt }] },
    ],
    tools: [SHELL, PLAN, { type: "function", name: "view_image", description: "Attach a local image.", strict: false, parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
      { type: "namespace", name: "multi_agent", description: "Sub-agents.", tools: [{ type: "function", name: "spawn_agent", parameters: { type: "object", properties: {} } }] },
      { type: "web_search" }],
    tool_choice: "auto",
    parallel_tool_calls: false,
    reasoning: { effort: "medium", summary: "auto" },
    store: false,
    stream: true,
    include: ["reasoning.encrypted_content"],
    prompt_cache_key: "0199-session",
    text: { verbosity: "medium" },
  };
}

describe("gateway /v1/responses with Codex's default request", () => {
  it("completes a streamed turn, forwarding the function tools and dropping what the chat upstream cannot run, recorded with the operation", async () => {
    seen.length = 0;
    gw.bind([{ id: "spy", hookRef: "spy", point: "model.chat.before" }]);
    const stream = await gw.client.responses.create(codexTurn("thanks, and now?") as unknown as OpenAI.Responses.ResponseCreateParamsStreaming).withResponse();
    let text = "";
    let completed: OpenAI.Responses.Response | undefined;
    for await (const e of stream.data) {
      if (e.type === "response.output_text.delta") text += e.delta;
      if (e.type === "response.completed") completed = e.response;
    }
    // The stub calls the first tool it is given: the answer is Codex's shell call.
    expect(completed?.status).toBe("completed");
    expect(completed?.output.find((o) => o.type === "function_call")).toMatchObject({ name: "shell" });
    expect(text).toBe("");
    const sent = gw.stub.bodies.at(-1)!;
    expect(sent.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(["shell", "update_plan", "view_image"]);
    expect(JSON.stringify(sent)).not.toMatch(/encrypted_content|web_search|multi_agent|prompt_cache_key/);
    const id = stream.response.headers.get("x-sluice-operation-id")!;
    expect((await records.get(id))?.artifacts).toEqual([
      { kind: "gateway.dropped", param: "input[6]", type: "web_search_call" },
      { kind: "gateway.dropped", param: "tools[3]", type: "namespace", name: "multi_agent" },
      { kind: "gateway.dropped", param: "tools[4]", type: "web_search" },
    ]);
    const tools = (seen[0]?.payload as { tools: { name: string; description?: string }[] }).tools;
    expect(tools.map((t) => t.name)).toEqual(["shell", "update_plan", "view_image", "multi_agent", "web_search"]);
    expect(tools.at(-1)?.description).toMatch(/^not forwarded/);
  });

  it("still lets prompt-guard refuse the turn, as an error the client raises", async () => {
    gw.bind([{ id: "guard", hookRef: "prompt-guard@1.0.0", point: "model.chat.before", config: { deny: ["salary"] } }]);
    const calls = gw.stub.chatCalls;
    const err = await gw.client.responses.create(codexTurn("what is the CEO's salary?") as unknown as OpenAI.Responses.ResponseCreateParamsStreaming).then(() => null, (e) => e);
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(err).toMatchObject({ status: 403, error: { sluice_code: "HOOK_REJECTED" } });
    expect(gw.stub.chatCalls).toBe(calls);
  });

  it("still redacts the streamed text with pii-redact", async () => {
    gw.bind([{ id: "pii", hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    const body = { ...codexTurn("mail alice@example.com now"), tools: [{ type: "web_search" }] };
    const stream = await gw.client.responses.create(body as unknown as OpenAI.Responses.ResponseCreateParamsStreaming);
    const deltas: string[] = [];
    for await (const e of stream) if (e.type === "response.output_text.delta") deltas.push(e.delta);
    expect(deltas.join("")).toBe(answerOf("mail [email] now"));
    for (const d of deltas) expect(d).not.toMatch(/alic|@ex|ample/);
  });
});
