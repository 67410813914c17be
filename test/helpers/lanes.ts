/**
 * What a sandbox's lanes are doing, for tests that must act at a given moment of a call's
 * life (cancel it while it runs, close while a batch is in flight) and wait for that moment
 * with `until` instead of guessing how long it takes.
 */
import type { Sandbox } from "../../host/sandbox/index.js";
import type { Lane } from "../../host/sandbox/main/lane.js";

const lanesOf = (sandbox: Sandbox): Set<Lane> => (sandbox as unknown as { lanes: Set<Lane> }).lanes;

/** Calls the workers hold now (the one each runs and the one it takes next), not those waiting in the caller's queue. */
export const callsHeld = (sandbox: Sandbox): number => [...lanesOf(sandbox)].reduce((sum, l) => sum + l.inFlight, 0);

/** True once some worker holds a call: what was sent is running, not waiting in the caller's queue. */
export const handedOver = (sandbox: Sandbox): boolean => callsHeld(sandbox) > 0;

/** True while the sandbox rests: every worker it held was let go after `idleMs`. */
export const resting = (sandbox: Sandbox): boolean => [...lanesOf(sandbox)].every((l) => l.dead);
