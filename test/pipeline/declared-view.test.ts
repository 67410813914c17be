// The declared view (host/pipeline/declared-view.ts) and the 1.0 presentation
// (host/pipeline/legacy-view.ts): pure functions, tested without WebAssembly.
import { describe, expect, it } from "vitest";
import { declaredView, isDeclared, restoreView } from "../../host/pipeline/declared-view.js";
import { presentToV10 } from "../../host/pipeline/legacy-view.js";
import { getPoint } from "../../host/pipeline/points.js";

const BEFORE = getPoint("model.chat.before").schema;
const request = {
  model: "m", purpose: "action", stream: false, store: true,
  messages: [
    { role: "developer", content: "be brief", cache_control: { type: "ephemeral" } },
    { role: "user", name: "bob", content: [{ type: "text", text: "a", extra: 1 }, { type: "image_url", image_url: { url: "u", detail: "low", x: 2 } }, { type: "video", video: { id: "v" } }, { type: "text", text: "b" }] },
    { role: "assistant", content: null, refusal: "no", reasoning_content: "why", tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" }, index: 0 }] },
  ],
  params: { temperature: 0.1, stop: "END", reasoning_effort: "low" },
};

describe("the declared view", () => {
  it("drops what no point declares, at every depth, and shows unknown part types as their type", () => {
    const view = declaredView(BEFORE, request) as any;
    expect(view).not.toHaveProperty("store");
    expect(view.messages[0]).toEqual({ role: "developer", content: "be brief" });
    expect(view.messages[1].content).toEqual([{ type: "text", text: "a" }, { type: "image_url", image_url: { url: "u", detail: "low" } }, { type: "video" }, { type: "text", text: "b" }]);
    expect(view.messages[2].tool_calls[0]).toEqual({ id: "c1", type: "function", function: { name: "f", arguments: "{}" } });
    expect(view.params).toEqual({ temperature: 0.1, stop: "END" });
  });

  it("restores every undeclared field in its place and key order, with the hooks' changes", () => {
    expect(JSON.stringify(restoreView(BEFORE, request, declaredView(BEFORE, request)))).toBe(JSON.stringify(request));
    const view = structuredClone(declaredView(BEFORE, request)) as any;
    view.messages[1].content[0].text = "A";
    view.messages.push({ role: "user", content: "new" });
    const back = restoreView(BEFORE, request, view) as any;
    expect(back.messages[1].content[0]).toEqual({ type: "text", text: "A", extra: 1 });
    expect(back.messages[1].content[2]).toEqual({ type: "video", video: { id: "v" } });
    expect(back.messages[3]).toEqual({ role: "user", content: "new" });
    expect(back.params).toEqual(request.params);
  });

  it("tells declared patch paths from undeclared ones", () => {
    expect(isDeclared(BEFORE, ["messages", "1", "content", "0", "text"])).toBe(true);
    expect(isDeclared(BEFORE, ["params", "response_format", "json_schema", "strict"])).toBe(true);
    expect(isDeclared(BEFORE, ["params", "logit_bias", "50256"])).toBe(true);
    expect(isDeclared(BEFORE, ["params", "reasoning_effort"])).toBe(false);
    expect(isDeclared(BEFORE, ["messages", "0", "cache_control"])).toBe(false);
    expect(isDeclared(BEFORE, ["messages", "1", "content", "1", "image_url", "x"])).toBe(false);
  });
});

describe("the 1.0 presentation", () => {
  it("shows each text of a message as its own 1.0 message and writes a changed one back where it came from", () => {
    const payload = declaredView(BEFORE, request) as Record<string, unknown>;
    const shown = presentToV10("model.chat.before", payload)!;
    const [view] = shown.views as [any];
    expect(view.messages.map((m: any) => [m.role, m.content])).toEqual([["system", "be brief"], ["user", "a"], ["user", "b"], ["assistant", null], ["assistant", "no"], ["assistant", "why"]]);
    expect(view.messages[1].name).toBe("bob");
    expect(view.messages[3].tool_calls).toHaveLength(1);
    expect(view.params.stop).toEqual(["END"]);
    const changed = structuredClone(view);
    changed.messages[2].content = "B";
    changed.messages[5].content = "[why]";
    changed.messages.push({ role: "system", content: "extra" });
    const back = shown.back([changed]) as any;
    expect(back.messages[1].content).toEqual([{ type: "text", text: "a" }, { type: "image_url", image_url: { url: "u", detail: "low" } }, { type: "video" }, { type: "text", text: "B" }]);
    expect(back.messages[2]).toMatchObject({ refusal: "no", reasoning_content: "[why]", content: null });
    expect(back.messages[0].role).toBe("developer");
    expect(back.messages[3]).toEqual({ role: "system", content: "extra" });
    expect(back.params.stop).toBe("END");
  });

  it("leaves a payload a 1.0 guest already reads alone", () => {
    expect(presentToV10("model.chat.before", { model: "m", messages: [{ role: "user", content: "hi" }] })).toBeUndefined();
    expect(presentToV10("model.chat.after", { model: "m", content: "hi", tool_calls: [] })).toBeUndefined();
    expect(presentToV10("tool.before", { arguments: {} })).toBeUndefined();
  });

  it("shows an answer once per text and writes each result back", () => {
    const answer = { model: "m", content: [{ type: "text", text: "x" }], refusal: "r", reasoning_content: "t", tool_calls: [], finish_reason: "stop", usage: { input_tokens: 0, output_tokens: 0 } };
    const shown = presentToV10("model.chat.after", answer)!;
    expect(shown.views.map((v) => v.content)).toEqual(["x", "r", "t"]);
    expect(shown.views.every((v) => !("refusal" in v) && !("reasoning_content" in v))).toBe(true);
    const back = shown.back(shown.views.map((v) => ({ ...v, content: `<${String(v.content)}>` }))) as any;
    expect(back).toMatchObject({ content: [{ type: "text", text: "<x>" }], refusal: "<r>", reasoning_content: "<t>" });
  });
});
