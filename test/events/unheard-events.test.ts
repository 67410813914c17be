/**
 * An event nobody listens to is never built: `sluice serve` listens to three event types,
 * and building the others (digests, schema validation, freezing) cost every call.
 */
import { afterAll, describe, expect, it, vi } from "vitest";
import { createHost } from "../../host/index.js";
import { EventBus } from "../../host/events/bus.js";
import type { ChatRequest, ChatResponse } from "../../host/boundary/chat.js";

describe("events only listeners hear are built", () => {
  it("the bus wants a type while a listener of it, or of every type, is subscribed", () => {
    const bus = new EventBus();
    expect(bus.wants("model.chat.completed")).toBe(false);
    const offRelease = bus.on(() => {}, ["release.activated"]);
    expect(bus.wants("release.activated")).toBe(true);
    expect(bus.wants("model.chat.completed")).toBe(false);
    const offAll = bus.on(() => {});
    expect(bus.wants("model.chat.completed")).toBe(true);
    offAll();
    expect(bus.wants("model.chat.completed")).toBe(false);
    offRelease();
    expect(bus.wants("release.activated")).toBe(false);
  });

  const host = createHost({ workers: 1 });
  afterAll(() => host.close());
  const request: ChatRequest = { model: "m1", messages: [{ role: "user", content: "hi" }] };
  const answer: ChatResponse = { content: "hello", tool_calls: [], finish_reason: "stop", usage: { input_tokens: 3, output_tokens: 2 } };

  it("a chat call publishes no model.chat.completed while only other types are heard, and publishes it once it is", async () => {
    host.activate({ revision: 1, bindings: [] });
    const publish = vi.spyOn(host.observer, "publish");
    const seen: string[] = [];
    const offRelease = host.observer.on((e) => { seen.push(e.type); }, ["release.activated"]);
    expect((await host.chat({ spaceId: "s" }, request, async () => answer)).ok).toBe(true);
    expect(publish.mock.calls.map(([type]) => type)).toEqual([]);
    const offChat = host.observer.on((e) => { seen.push(e.type); }, ["model.chat.completed"]);
    expect((await host.chat({ spaceId: "s" }, request, async () => answer)).ok).toBe(true);
    await host.observer.flush();
    expect(publish.mock.calls.map(([type]) => type)).toEqual(["model.chat.completed"]);
    expect(seen).toEqual(["model.chat.completed"]);
    offChat();
    offRelease();
    publish.mockRestore();
  });
});
