import type { OperationStages } from "./stages.js";
import type { OperationJournal } from "../records/journal.js";
import { withChanges, withKeys } from "../objects/with-keys.js";

/** Both progress answers awaited before the hook runs; nothing to wait for when neither is a promise. */
function both(a: Promise<void> | void, b: Promise<void> | void): Promise<void> | void {
  return a && b ? Promise.all([a, b]).then(() => undefined) : a ?? b;
}

/**
 * Stages that keep the operation's record: every hook they run goes into its audit, and
 * the phase boundaries a crash must find are persisted before the operation goes on past
 * them (records/journal.ts says what is on disk when).
 */
export function recordedStages(stages: OperationStages, journal: OperationJournal): OperationStages {
  return withChanges(stages, {
    run: (point, payload) => stages.run(point, payload).then((r) => { journal.stage(point, payload, r); return r; }),
    // The checkpoint names the binding in progress while an after hook runs (engine/stage.ts says when it is told).
    runAfter: (point, payload, before, options) => stages.runAfter(point, payload, before, withKeys(options ?? {}, { progress: (bindingId: string) => both(options?.progress?.(bindingId), journal.inProgress(point, bindingId)) }))
      .then((r) => { journal.stage(point, payload, r); return r; }),
    diagnostic: (point, payload) => stages.diagnostic(point, payload).then((r) => { journal.stage(point, payload, r); return r; }),
    // The stages' own calls first: they wake a worker for the hooks that run next (operation-engine.ts).
    opened: (operation, before, after) => stages.opened(operation, before, after).then((refused) => refused ?? journal.start(operation, before, after)),
    calling: (before, input) => journal.running(before, input),
    called: (after, real, afterPayload, before, facts) => { const done = stages.called(after, real, afterPayload, before, facts); journal.succeeded(after, real, afterPayload, before, facts); return done; },
    awaiting: (after, input, before) => journal.awaiting(after, input, before),
    closed: async (phase, error, outcome, facts, output) => { await journal.ended(phase, error, outcome, facts, output); return journal.error; },
  });
}
