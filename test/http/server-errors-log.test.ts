import { describe, expect, it } from "vitest";
import { SluiceError } from "../../host/errors/sluice-error.js";
import { errorFields } from "../../host/http/server-errors-log.js";

describe("the fields a server error is logged with", () => {
  it("follow the causes down to the one that explains the failure", () => {
    const inner = new SluiceError("UPSTREAM_FAILED", "connect ECONNREFUSED 127.0.0.1:9");
    const outer = new SluiceError("OPERATION_FAILED", "the model call failed", { cause: inner });
    expect(errorFields(outer)).toMatchObject({ err: outer, detail: "the model call failed <- connect ECONNREFUSED 127.0.0.1:9" });
  });

  it("withhold a guest's abort message, which may carry the payload it read, wherever it is repeated", () => {
    const text = "card 4111 1111 1111 1111 in the prompt";
    const aborted = new SluiceError("GUEST_ABORTED", `guest aborted: ${text}`, { guestMessage: text });
    const failed = new SluiceError("HOOK_FAILED", `hook guard@1.0.0 (binding g) failed at model.chat.before: guest aborted: ${text}`, { bindingId: "g", cause: aborted });
    const fields = errorFields(failed);
    expect(JSON.stringify(fields)).not.toContain("4111");
    expect(fields).toEqual({
      err: { type: "SluiceError", code: "HOOK_FAILED", message: "hook guard@1.0.0 (binding g) failed at model.chat.before: guest aborted: [guest text withheld]" },
      detail: "hook guard@1.0.0 (binding g) failed at model.chat.before: guest aborted: [guest text withheld] <- guest aborted: [guest text withheld]",
    });
  });
});
