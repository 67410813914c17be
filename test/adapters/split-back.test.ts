/** splitBack: a hook's change to the joined text of a framework's parts, mapped back onto the parts. */
import { describe, expect, it } from "vitest";
import { splitBack } from "../../host/adapters/shared/split-back.js";

describe("splitBack", () => {
  it("gives the same texts back when the join is unchanged", () => {
    expect(splitBack(["a", "b"], "ab")).toEqual(["a", "b"]);
  });
  it("puts a redaction across a part boundary in the first part it touches and takes the rest out of the next", () => {
    expect(splitBack(["Write to alice.", "smith@example.com today."], "Write to [email] today.")).toEqual(["Write to [email]", " today."]);
    expect(splitBack(["ab", "cd", "ef"], "aZf")).toEqual(["aZ", "", "f"]);
  });
  it("leaves an empty part (a redacted reasoning block) empty while another part has text", () => {
    expect(splitBack(["", "abc"], "xbc")).toEqual(["", "xbc"]);
  });
  it("keeps every part when the hook empties the text, and places added text", () => {
    expect(splitBack(["ab", "cd"], "")).toEqual(["", ""]);
    expect(splitBack(["ab", "cd"], "abXcd")).toEqual(["abX", "cd"]);
    expect(splitBack(["", ""], "hi")).toEqual(["hi", ""]);
    expect(splitBack([], "hi")).toEqual(["hi"]);
  });
});
