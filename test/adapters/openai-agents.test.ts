/** sluice/openai-agents: the Model and tool wrappers under the Agents SDK's own runner, with a fake Model (the SDK's interface, no network). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, Runner, run, setTracingDisabled, tool, Usage, type AgentInputItem, type AgentOutputItem, type Model, type ModelRequest, type ModelResponse, type StreamEvent } from "@openai/agents";
import { z } from "zod";
import { guardTool, SluiceModel, SluiceModelProvider } from "sluice/openai-agents";
import { adapterHost, EMAIL, leaks, type AdapterHost } from "./setup.js";
import { paramsOf, settingsAfter } from "../../host/adapters/openai-agents/params.js";

let h: AdapterHost;
beforeAll(async () => { setTracingDisabled(true); h = await adapterHost(); });
afterAll(() => h.close());

const context = { spaceId: "space-a" };
const usage = new Usage({ requests: 1, inputTokens: 3, outputTokens: 5, totalTokens: 8 });
const say = (text: string): AgentOutputItem => ({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] });
const callSearch = (args: object): AgentOutputItem => ({ type: "function_call", callId: "call-1", name: "orders_search", arguments: JSON.stringify(args), status: "completed" });

/** A Model that answers from a script, one turn per call; streamed turns send their deltas, also as raw provider events. */
class ScriptedModel implements Model {
  readonly calls: ModelRequest[] = [];
  constructor(private readonly turns: { output: AgentOutputItem[]; deltas?: string[]; reasoning?: string[] }[]) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.calls.push(request);
    return { usage, output: this.turns.shift()!.output, responseId: `resp-${this.calls.length}` };
  }
  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    this.calls.push(request);
    const turn = this.turns.shift()!;
    yield { type: "response_started" };
    for (const delta of turn.reasoning ?? []) yield { type: "model", event: { type: "response.reasoning_summary_text.delta", delta } };
    for (const delta of turn.deltas ?? []) {
      yield { type: "model", event: { type: "response.output_text.delta", delta } };
      yield { type: "output_text_delta", delta };
    }
    yield { type: "response_done", response: { id: `resp-${this.calls.length}`, usage, output: turn.output as never } };
  }
}

function searchTool(got: unknown[]) {
  return tool({ name: "orders_search", description: "Search orders", parameters: z.object({ query: z.string(), limit: z.number().int() }), execute: async (args) => { got.push(args); return `${args.limit} orders for ${args.query}`; } });
}

const agentOn = (inner: ScriptedModel, tools: ReturnType<typeof searchTool>[] = []) =>
  new Agent({ name: "support", model: new SluiceModel({ model: inner, modelId: "scripted", host: h.host, context }), tools: tools.map((t) => guardTool(t, { host: h.host, context })) });

describe("sluice/openai-agents", () => {
  it("clamps a tool argument: the tool runs with the clamped value and the model sees its result", async () => {
    h.bind([{ hookRef: "order-search-limit@1.0.0", point: "tool.before", config: { max_limit: 100 }, match: { toolIds: ["orders_search"] } }]);
    const got: unknown[] = [];
    const inner = new ScriptedModel([{ output: [callSearch({ query: "shoes", limit: 500 })] }, { output: [say("done")] }]);
    const r = await run(agentOn(inner, [searchTool(got)]), "find shoes");
    expect(got).toEqual([{ query: "shoes", limit: 100 }]);
    expect(r.finalOutput).toBe("done");
    expect(inner.calls[1]!.input).toContainEqual(expect.objectContaining({ type: "function_call_result", callId: "call-1", output: expect.objectContaining({ text: "100 orders for shoes" }) }));
  });

  it("streams only redacted text: no event the runner's consumer received carries the e-mail, and response_done has the hooked text", async () => {
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    const inner = new ScriptedModel([{
      deltas: ["Write to alice.", "smith@exam", "ple.com today."],
      reasoning: ["the user is alice.sm", "ith@example.com"],
      output: [{ type: "reasoning", content: [{ type: "input_text", text: `the user is ${EMAIL}` }] }, say(`Write to ${EMAIL} today.`)],
    }]);
    const result = await run(agentOn(inner), `mail ${EMAIL}`, { stream: true });
    const events: unknown[] = [];
    for await (const e of result) events.push(e);
    await result.completed;
    const seen = events.map((e) => JSON.stringify(e));
    expect(seen.filter(leaks)).toEqual([]);
    expect(result.finalOutput).toBe("Write to [email] today.");
    const done = events.flatMap((e) => ((e as { type: string; data?: StreamEvent }).type === "raw_model_stream_event" && (e as { data: StreamEvent }).data.type === "response_done" ? [(e as { data: Extract<StreamEvent, { type: "response_done" }> }).data] : []));
    expect(done).toHaveLength(1);
    expect(done[0]!.response.output).toContainEqual(expect.objectContaining({ role: "assistant", content: [{ type: "output_text", text: "Write to [email] today." }] }));
    const deltas = events.flatMap((e) => ((e as { data?: StreamEvent }).data?.type === "output_text_delta" ? [((e as { data: { delta: string } }).data.delta)] : []));
    expect(deltas.join("")).toBe("Write to [email] today.");
    // Reasoning went through the chunk hooks too: redacted in its deltas and in the final reasoning item.
    expect(done[0]!.response.output).toContainEqual(expect.objectContaining({ type: "reasoning", content: [{ type: "input_text", text: "the user is [email]" }] }));
  });

  it("hands the model the runner's request unchanged when no hook changes it", async () => {
    h.bind([]);
    const history: AgentInputItem[] = [
      { type: "message", role: "user", content: [{ type: "input_text", text: "find shoes" }] },
      { type: "reasoning", id: "rs_1", content: [{ type: "input_text", text: "search first" }], providerData: { encrypted: "x" } },
      callSearch({ query: "shoes", limit: 5 }),
      { type: "function_call_result", callId: "call-1", name: "orders_search", status: "completed", output: { type: "text", text: "5 orders" } },
    ];
    const direct = new ScriptedModel([{ output: [say("done")] }]);
    const inner = new ScriptedModel([{ output: [say("done")] }]);
    await run(new Agent({ name: "support", instructions: "be brief", model: direct }), history);
    const r = await run(new Agent({ name: "support", instructions: "be brief", model: new SluiceModel({ model: inner, modelId: "scripted", host: h.host, context }) }), history);
    expect(r.finalOutput).toBe("done");
    const { signal: _a, tracing: _b, ...sent } = inner.calls[0]!;
    const { signal: _c, tracing: _d, ...expected } = direct.calls[0]!;
    expect(sent).toEqual(expected);
  });

  it("hands the model what a before hook changed, the rest of the item as it was", async () => {
    h.bind([{ point: "model.chat.before", config: { mode: "patch", path: "/messages/1/content", value: "find boots" } }]);
    const inner = new ScriptedModel([{ output: [say("done")] }]);
    await run(new Agent({ name: "support", instructions: "be brief", model: new SluiceModel({ model: inner, modelId: "scripted", host: h.host, context }) }), [
      { type: "message", role: "user", content: [{ type: "input_text", text: "find shoes" }], providerData: { tag: 1 } },
    ]);
    expect(inner.calls[0]).toMatchObject({ systemInstructions: "be brief", input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "find boots" }], providerData: { tag: 1 } }] });
  });

  it("shows hooks the declared params the agent's model settings set, and hands the model each one a hook changed", async () => {
    const seen: unknown[] = [];
    h.host.registerHook("params-seen", (req) => { seen.push((req.payload as { params?: unknown }).params); return { kind: "continue" }; });
    const patch = (path: string, value: unknown) => ({ point: "model.chat.before" as const, config: { mode: "patch", path, value } });
    h.bind([
      { hookRef: "params-seen", point: "model.chat.before", config: {} },
      patch("/params/frequency_penalty", 0.5), patch("/params/presence_penalty", -0.5), patch("/params/parallel_tool_calls", false),
      patch("/params/tool_choice", { type: "function", function: { name: "orders_search" } }),
    ]);
    const inner = new ScriptedModel([{ output: [say("done")] }]);
    const modelSettings = { frequencyPenalty: 0.1, presencePenalty: 0.2, parallelToolCalls: true, toolChoice: "auto", truncation: "auto" as const };
    await run(new Agent({ name: "support", model: new SluiceModel({ model: inner, modelId: "scripted", host: h.host, context }), modelSettings, tools: [searchTool([])], resetToolChoice: false }), "find shoes");
    expect(seen[0]).toEqual({ frequency_penalty: 0.1, presence_penalty: 0.2, parallel_tool_calls: true, tool_choice: "auto" });
    expect(inner.calls[0]!.modelSettings).toMatchObject({ frequencyPenalty: 0.5, presencePenalty: -0.5, parallelToolCalls: false, toolChoice: "orders_search", truncation: "auto" });
  });

  it("fails the call, naming the param, when a hook sets a value the Agents SDK cannot carry", async () => {
    h.bind([{ point: "model.chat.before", config: { mode: "patch", path: "/params/tool_choice", value: { type: "bogus" } } }]);
    const inner = new ScriptedModel([{ output: [say("done")] }]);
    const agent = new Agent({ name: "support", model: new SluiceModel({ model: inner, modelId: "scripted", host: h.host, context }), modelSettings: { toolChoice: "auto" }, tools: [searchTool([])] });
    await expect(run(agent, "find shoes")).rejects.toMatchObject({ code: "PATCH_FORBIDDEN", details: { path: "/params/tool_choice" } });
    expect(inner.calls).toHaveLength(0);
    expect(() => settingsAfter({}, { seed: 3 })).toThrow(expect.objectContaining({ code: "PATCH_FORBIDDEN", details: { path: "/params/seed" } }));
    expect(() => settingsAfter({}, { tool_choice: null })).toThrow(expect.objectContaining({ code: "PATCH_FORBIDDEN", details: { path: "/params/tool_choice" } }));
    expect(paramsOf({ toolChoice: "orders_search" })).toEqual({ tool_choice: { type: "function", function: { name: "orders_search" } } });
  });

  it("a rejected prompt fails the run with the hook's reason and never calls the model", async () => {
    h.bind([{ hookRef: "prompt-guard@1.0.0", point: "model.chat.before", config: { deny: ["salary"] } }]);
    const inner = new ScriptedModel([{ output: [say("no")] }, { output: [say("no")] }]);
    await expect(run(agentOn(inner), "the CEO's salary?")).rejects.toMatchObject({ code: "HOOK_REJECTED", message: expect.stringMatching(/deny pattern 0/) });
    const streamed = await run(agentOn(inner), "the CEO's salary?", { stream: true });
    await expect((async () => { for await (const _ of streamed) { /* drain */ } await streamed.completed; })()).rejects.toMatchObject({ code: "HOOK_REJECTED" });
    expect(inner.calls).toHaveLength(0);
  });

  it("a model provider guards agents that name their model by a string, matched on that name", async () => {
    h.bind([{ id: "cache", point: "model.chat.before", match: { modelIds: ["gpt-x"] }, config: { mode: "short_circuit", result: { content: "from the cache" } } }]);
    const inner = new ScriptedModel([{ output: [say("fresh")] }]);
    const runner = new Runner({ modelProvider: new SluiceModelProvider({ provider: { getModel: () => inner }, host: h.host, context }) });
    expect((await runner.run(new Agent({ name: "support", model: "gpt-x" }), "hi")).finalOutput).toBe("from the cache");
    expect((await runner.run(new Agent({ name: "support", model: "gpt-y" }), "hi")).finalOutput).toBe("fresh");
  });

  it("a failing model's own error reaches the runner, not a wrapped one", async () => {
    h.bind([]);
    class ProviderDown extends Error {}
    const down: Model = { getResponse: async () => { throw new ProviderDown("provider down"); }, getStreamedResponse: async function* () { throw new ProviderDown("provider down"); } };
    const agent = new Agent({ name: "support", model: new SluiceModel({ model: down, modelId: "down", host: h.host, context }) });
    await expect(run(agent, "hi")).rejects.toBeInstanceOf(ProviderDown);
  });

  it("a rejected tool call never runs the tool; the model is told why", async () => {
    h.bind([{ id: "no-search", point: "tool.before", config: { mode: "reject", code: "policy.denied", reason: "searching is off" } }]);
    const got: unknown[] = [];
    const inner = new ScriptedModel([{ output: [callSearch({ query: "shoes", limit: 5 })] }, { output: [say("sorry")] }]);
    const r = await run(agentOn(inner, [searchTool(got)]), "find shoes");
    expect(got).toEqual([]);
    expect(r.finalOutput).toBe("sorry");
    expect(inner.calls[1]!.input).toContainEqual(expect.objectContaining({ type: "function_call_result", output: expect.objectContaining({ text: "rejected by binding no-search: policy.denied searching is off" }) }));
  });

  it("redacts a tool's result in tool.after: the model's next input and the run's items carry no e-mail", async () => {
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "tool.after" }]);
    const lookup = tool({ name: "customer_lookup", description: "A customer's contact", parameters: z.object({ id: z.string() }), execute: async ({ id }) => `customer ${id}: ${EMAIL}` });
    const inner = new ScriptedModel([{ output: [{ type: "function_call", callId: "call-1", name: "customer_lookup", arguments: "{\"id\":\"c7\"}", status: "completed" }] }, { output: [say("done")] }]);
    const agent = new Agent({ name: "support", model: new SluiceModel({ model: inner, modelId: "scripted", host: h.host, context }), tools: [guardTool(lookup, { host: h.host, context })] });
    const r = await run(agent, "who is c7?");
    expect(inner.calls[1]!.input).toContainEqual(expect.objectContaining({ type: "function_call_result", output: expect.objectContaining({ text: "customer c7: [email]" }) }));
    expect(leaks(JSON.stringify(inner.calls[1]!.input))).toBe(false);
    expect(leaks(JSON.stringify(r.newItems))).toBe(false);
  });

  it("a short-circuit serves the hook's answer without calling the model, run or streamed", async () => {
    h.bind([{ id: "cache", point: "model.chat.before", config: { mode: "short_circuit", result: { content: "from the cache", finish_reason: "stop" } } }]);
    const inner = new ScriptedModel([]);
    expect((await run(agentOn(inner), "hi")).finalOutput).toBe("from the cache");
    const streamed = await run(agentOn(inner), "hi", { stream: true });
    for await (const _ of streamed) { /* drain */ }
    await streamed.completed;
    expect(streamed.finalOutput).toBe("from the cache");
    expect(inner.calls).toHaveLength(0);
  });
});
