// The ABI golden vectors through a component guest: the echo hook wrapped as a component,
// so the request and reply cross jco's list<u8> lifting and lowering byte for byte.
import { expect, it } from "vitest";
import { guestVectorSuite } from "../abi/guest-vector-suite.js";
import { componentFixture } from "./fixtures.js";

guestVectorSuite("ABI v1 vectors through a component guest", () => componentFixture("vector-echo"), {
  checks: (echo) => {
    it("is loaded as a component", () => {
      expect(echo().component?.handler).toBe("sluice:hook/handler@1.0.0");
      expect(echo().abi).toEqual({ major: 1, minor: 0 });
    });
  },
});
