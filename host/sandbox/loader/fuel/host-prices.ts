/**
 * What each host function costs the guest in fuel (abi/README.md §11): a fixed price per call
 * and the bytes it moves, from its arguments before it runs and, for kv_get, from its answer
 * (the value's length: the store reads the whole value even when the guest's buffer is too
 * small for it). Prices depend only on the arguments and the store's contents, never on the
 * machine, so the fuel a call uses stays the same on every run. Charged by the host bridge
 * (host-bridge.ts), which ends the call before the work when the price overdraws the budget.
 */
import { HOST_BYTE_COST, HOST_CALL_COST, KV_CALL_COST } from "./cost-model.js";
import { LOG_LIMITS } from "../../limits.js";

export type HostFunction = "log" | "abort" | "kv_get" | "kv_set" | "kv_delete";

/** A log or abort message is read up to the line limit, whatever length the guest claims. */
const text = (len: number | undefined): number => Math.min((len ?? 0) >>> 0, LOG_LIMITS.lineBytes);
const bytes = (...lens: (number | undefined)[]): number => lens.reduce<number>((sum, n) => sum + ((n ?? 0) >>> 0), 0);

/** The price of a call, before it runs. */
export function priceBefore(name: HostFunction, args: readonly (number | undefined)[]): number {
  switch (name) {
    case "log": return HOST_CALL_COST + HOST_BYTE_COST * text(args[2]);
    case "abort": return HOST_CALL_COST + HOST_BYTE_COST * text(args[1]);
    case "kv_get": return KV_CALL_COST + HOST_BYTE_COST * bytes(args[1]);
    case "kv_set": return KV_CALL_COST + HOST_BYTE_COST * bytes(args[1], args[3]);
    case "kv_delete": return KV_CALL_COST + HOST_BYTE_COST * bytes(args[1]);
  }
}

/** What is charged once the answer is known: kv_get's value, by its length. */
export const PRICE_AFTER: Readonly<Partial<Record<HostFunction, (answer: number) => number>>> = {
  kv_get: (n) => (n > 0 ? HOST_BYTE_COST * n : 0),
};
