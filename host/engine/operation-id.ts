/**
 * Operation ids: UUIDv7, time-ordered (a record's key lands beside the last one in every
 * store's index instead of on a random page) and monotonic within a millisecond, as `uuid`'s
 * own `v7()` makes them, with random bits from the shared pool (objects/fresh-random.ts):
 * `v7()` asks the CSPRNG for 16 bytes on every id.
 */
import { v7 } from "uuid";
import { freshRandom } from "../objects/fresh-random.js";

// uuid's updateV7State (not exported): a new millisecond starts a random sequence, the same one counts up.
const state = { msecs: -Infinity, seq: 0 };

export function newOperationId(): string {
  const rnds = freshRandom(16);
  const now = Date.now();
  if (now > state.msecs) {
    state.seq = ((rnds[6]! & 0x7f) << 24) | (rnds[7]! << 16) | (rnds[8]! << 8) | rnds[9]!;
    state.msecs = now;
  } else {
    state.seq = (state.seq + 1) | 0;
    if (state.seq === 0) state.msecs++;
  }
  return v7({ random: rnds, msecs: state.msecs, seq: state.seq });
}
