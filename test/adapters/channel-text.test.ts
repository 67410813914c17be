/** ChannelText: which of the model's pieces a chunk hook's emitted text stands for, held text and redactions included. */
import { describe, expect, it } from "vitest";
import { ChannelText } from "../../host/adapters/shared/channel-text.js";

describe("ChannelText", () => {
  it("gives text a hook held back past its part's end back to that part, not to the part that released it", () => {
    const t = new ChannelText();
    t.add("a", 0, "Hello alice.");
    t.add("b", 1, " Bye.");
    expect(t.take("Hello ", 0, false)).toEqual([{ key: "a", text: "Hello " }]);
    expect(t.waiting("a")).toBe(true);
    expect(t.take("alice. Bye.", 1, true)).toEqual([{ key: "a", text: "alice." }, { key: "b", text: " Bye." }]);
    expect(t.waiting("a")).toBe(false);
  });

  it("finds where a redacted emission ends in the source by the text after the redaction, and keeps the rest held", () => {
    const t = new ChannelText();
    t.add("a", 0, "Hi there. ");
    t.add("b", 1, "Mail alice.");
    t.add("b", 2, "smith@example.com now.");
    expect(t.take("Hi there. ", 0, false)).toEqual([{ key: "a", text: "Hi there. " }]);
    expect(t.take("Mail ", 1, false)).toEqual([{ key: "b", text: "Mail " }]);
    expect(t.take("[email] now", 2, false)).toEqual([{ key: "b", text: "[email] now" }]);
    expect(t.waiting("b")).toBe(true);
    expect(t.take(".", 3, true)).toEqual([{ key: "b", text: "." }]);
    expect(t.waiting("b")).toBe(false);
  });

  it("has no source for text a hook wrote once everything was given", () => {
    const t = new ChannelText();
    t.add("a", 0, "done");
    expect(t.take("done", 0, false)).toEqual([{ key: "a", text: "done" }]);
    expect(t.take(" (checked)", 1, true)).toEqual([]);
  });
});
