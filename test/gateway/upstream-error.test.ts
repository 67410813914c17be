import { describe, expect, it } from "vitest";
import { sanitiseUpstreamError } from "../../host/gateway/upstream-error.js";

describe("sanitiseUpstreamError: what a client may read of an upstream's error", () => {
  it("removes the network addresses a proxy upstream names (IPv4, IPv6, host:port)", () => {
    const message = "upstream connect error: connect ECONNREFUSED 10.0.3.7:8000 (tried [fd00::12]:443, llm-backend.internal:9000, localhost:11434)";
    expect(sanitiseUpstreamError(502, { message }).message).toBe("upstream connect error: connect ECONNREFUSED [address] (tried [address], [address], [address])");
  });

  it("keeps a message that names no address as it came", () => {
    expect(sanitiseUpstreamError(400, { message: "max_tokens must be at most 4096: got 8192" }).message).toBe("max_tokens must be at most 4096: got 8192");
  });
});
