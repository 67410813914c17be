export * from "./version.js";
export * from "./codec.js";
export * from "./envelope.js";
