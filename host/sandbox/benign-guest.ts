/** test/fixtures/wat/continue.wat, base64: replies {abi:"1.0", outcome:"continue"} to anything. The host warms its threads with it. */
export const CONTINUE_GUEST = "AGFzbQEAAAABDwNgAABgAX8Bf2ACf38BfgMEAwABAgUDAQABBgcBfwFBgAgLBzsEBm1lbW9yeQIAD3NsdWljZV9hYmlfdjFfMAAADHNsdWljZV9hbGxvYwABDXNsdWljZV9oYW5kbGUAAgohAwIACxEBAX8jACEBIwAgAGokACABCwoAQhBCIIZCGoQLCyABAEEQCxqCo2FiaaMxLjCnb3V0Y29tZahjb250aW51ZQ==";

/**
 * test/fixtures/wat/continue-reusable.wat, base64: the same guest with the reset export the
 * loader would give it, so the worker's warm-up also runs the instance-reuse path.
 */
export const CONTINUE_GUEST_REUSABLE = "AGFzbQEAAAABDwNgAABgAX8Bf2ACf38BfgMFBAABAgAFAwEAAQYHAX8BQYAICwdKBQZtZW1vcnkCAA9zbHVpY2VfYWJpX3YxXzAAAAxzbHVpY2VfYWxsb2MAAQ1zbHVpY2VfaGFuZGxlAAIMc2x1aWNlX3Jlc2V0AAMKKQQCAAsRAQF/IwAhASMAIABqJAAgAQsKAEIQQiCGQhqECwcAQYAIJAALCyABAEEQCxqCo2FiaaMxLjCnb3V0Y29tZahjb250aW51ZQ==";
/** How a worker reuses CONTINUE_GUEST_REUSABLE: its reset export, and where its one data segment ends (16 + 26). */
export const CONTINUE_GUEST_REUSE = { reset: "sluice_reset", imageBytes: 42 } as const;
