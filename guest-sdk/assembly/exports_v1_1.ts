// The raw exports of abi/README.md §2 for a guest built for ABI 1.1: it is given the 1.1
// chat shapes as they are (content parts, `refusal`, `reasoning_content`, the chunk
// `channel`). Re-export with
//   export * from "@sluice/guest-sdk/exports_v1_1";
export { sluice_alloc, sluice_handle } from "./exports-raw";

/** ABI version marker, read by the host before any guest code runs. Never called. */
export function sluice_abi_v1_1(): void {}
