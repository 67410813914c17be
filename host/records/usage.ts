/**
 * Who used the host over a time range: per space and per actor (a gateway call's actor is
 * its key's id), the operations started, those that ended in an error, and the model
 * tokens billed. Counted from the operation records themselves (sealed at rest, so opened
 * and counted here), the same over every store.
 */
import type { OperationStore } from "./store.js";
import type { OperationRecord } from "./types.js";

/** Records read at most for one answer (newest first): past it the answer says `complete: false`. */
export const USAGE_MAX_RECORDS = 100_000;

export interface UsageFigures {
  calls: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
}

export interface Usage {
  from: number | null;
  to: number | null;
  /** Records counted. */
  operations: number;
  complete: boolean;
  /** Unreadable records (RECORD_UNREADABLE) are left out and counted here. */
  unreadable: number;
  spaces: (UsageFigures & { spaceId: string })[];
  /** Operations with an actor (`ctx.actorId`): the gateway's carry their key's id. */
  actors: (UsageFigures & { actorId: string; spaceId: string })[];
}

const zero = (): UsageFigures => ({ calls: 0, errors: 0, inputTokens: 0, outputTokens: 0 });

function count(f: UsageFigures, r: OperationRecord): void {
  f.calls++;
  if (r.error) f.errors++;
  if (r.usage) { f.inputTokens += r.usage.input_tokens; f.outputTokens += r.usage.output_tokens; }
}

/**
 * Usage of the operations started in [from, to) (either bound optional).
 * @example await operationUsage(store, { from: Date.now() - 86_400_000 })
 */
export async function operationUsage(store: OperationStore, q: { from?: number; to?: number }): Promise<Usage> {
  let unreadable = 0;
  const read = await store.list({ limit: USAGE_MAX_RECORDS + 1 }, () => { unreadable++; });
  const spaces = new Map<string, UsageFigures>();
  const actors = new Map<string, UsageFigures & { spaceId: string }>();
  let operations = 0;
  for (const r of read.slice(0, USAGE_MAX_RECORDS)) {
    if ((q.from !== undefined && r.createdAt < q.from) || (q.to !== undefined && r.createdAt >= q.to)) continue;
    operations++;
    const { spaceId, actorId } = r.identity.ctx;
    let s = spaces.get(spaceId);
    if (!s) spaces.set(spaceId, (s = zero()));
    count(s, r);
    if (actorId !== undefined) {
      const key = `${spaceId}\u0000${actorId}`;
      let a = actors.get(key);
      if (!a) actors.set(key, (a = { ...zero(), spaceId }));
      count(a, r);
    }
  }
  return {
    from: q.from ?? null, to: q.to ?? null, operations, complete: read.length <= USAGE_MAX_RECORDS, unreadable,
    spaces: [...spaces.entries()].map(([spaceId, f]) => ({ spaceId, ...f })).sort((a, b) => a.spaceId.localeCompare(b.spaceId)),
    actors: [...actors.entries()].map(([key, f]) => ({ actorId: key.slice(key.indexOf("\u0000") + 1), ...f })).sort((a, b) => a.spaceId.localeCompare(b.spaceId) || a.actorId.localeCompare(b.actorId)),
  };
}
