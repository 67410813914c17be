import type { OperationStages } from "./stages.js";
import type { OperationJournal } from "../records/journal.js";
import { withKeys } from "../objects/with-keys.js";

/** Stages that audit every hook they run into the operation's journal. */
export interface RecordedStages extends OperationStages {
  readonly journal: OperationJournal;
}

export function recordedStages(stages: OperationStages, journal: OperationJournal): RecordedStages {
  return withKeys(stages, {
    journal,
    run: (point, payload) => stages.run(point, payload).then((r) => { journal.stage(point, payload, r); return r; }),
    runAfter: (point, payload, before, readOnly) => stages.runAfter(point, payload, before, readOnly).then((r) => { journal.stage(point, payload, r); return r; }),
    diagnostic: (point, payload) => stages.diagnostic(point, payload).then((r) => { journal.stage(point, payload, r); return r; }),
  } satisfies Pick<RecordedStages, "journal" | "run" | "runAfter" | "diagnostic">);
}
