// The raw exports of abi/README.md §2 for a guest built for ABI 1.2: shown what a 1.1 guest
// is shown, and it may answer `Outcome.ask` (at tool.before). Re-export with
//   export * from "@sluice/guest-sdk/exports_v1_2";
export { sluice_alloc, sluice_handle } from "./exports-raw";

/** ABI version marker, read by the host before any guest code runs. Never called. */
export function sluice_abi_v1_2(): void {}
