// The raw exports of abi/README.md §2 for a guest built for ABI 1.0. A hook's entry file
// re-exports them with
//   export * from "@sluice/guest-sdk/exports";
// A hook that reads the 1.1 chat shapes (content parts, reasoning, refusal, chunk
// channels) exports `@sluice/guest-sdk/exports_v1_1` instead; a 1.0 hook is shown every
// text of those shapes as the string it knows (abi/README.md §4.4). A hook that answers
// `Outcome.ask` exports `@sluice/guest-sdk/exports_v1_2`.
export { sluice_alloc, sluice_handle } from "./exports-raw";

/** ABI version marker, read by the host before any guest code runs. Never called. */
export function sluice_abi_v1_0(): void {}
