/**
 * The host's side of quarantine: feeds step reports into the state machine, answers the
 * stage's "may this plugin run?" question, and announces every transition through one
 * callback (the Host turns it into `host.on(...)` events).
 */
import type { ErrorData } from "../errors/sluice-error.js";
import type { StageGuard } from "../pipeline/stage.js";
import type { StepReport } from "../pipeline/run-steps.js";
import { QuarantineState, resolveQuarantinePolicy, type QuarantineEntry, type QuarantinePolicy } from "./quarantine.js";

/** What the Host announces: `plugin.quarantined` and `plugin.quarantine_lifted`. */
export interface QuarantineEvents {
  "plugin.quarantined": QuarantineEntry;
  "plugin.quarantine_lifted": { ref: string; by: "operator" | "cooldown"; entry: QuarantineEntry };
}
export type QuarantineEvent = { [K in keyof QuarantineEvents]: { type: K; data: QuarantineEvents[K] } }[keyof QuarantineEvents];

/** The operator's view of quarantine (what the management API and CLI call). */
export interface QuarantineControl {
  /** Plugins quarantined now. */
  list(): QuarantineEntry[];
  /** Lifts the quarantine of `ref` (`id@version`); false when it was not quarantined. */
  lift(ref: string): boolean;
}

export class PluginQuarantine implements StageGuard, QuarantineControl {
  private readonly state: QuarantineState | undefined;

  /** `policy: false` disables quarantine: nothing is counted, nothing is ever blocked. */
  constructor(policy: Partial<QuarantinePolicy> | false, private readonly emit: (event: QuarantineEvent) => void, private readonly now: () => number = Date.now) {
    this.state = policy === false ? undefined : new QuarantineState(resolveQuarantinePolicy(policy));
  }

  blocked(hookRef: string): ErrorData | undefined {
    const state = this.state;
    if (!state || state.size === 0) return undefined;
    for (const entry of state.expire(this.now())) this.emit({ type: "plugin.quarantine_lifted", data: { ref: entry.ref, by: "cooldown", entry } });
    const entry = state.get(hookRef);
    if (!entry) return undefined;
    return {
      code: "PLUGIN_QUARANTINED",
      message: `plugin ${hookRef} is quarantined after ${entry.failures} faults (last: ${entry.lastError.code}); ${entry.until === null ? "an operator must lift it" : `it is retried after ${new Date(entry.until).toISOString()}`}`,
      details: { ref: hookRef, since: entry.since, until: entry.until, lastError: entry.lastError.code },
    };
  }

  observe(report: StepReport): void {
    if (!this.state || !report.error) return;
    const entry = this.state.record(report.hookRef, report.error, this.now());
    if (entry) this.emit({ type: "plugin.quarantined", data: { ...entry } });
  }

  list(): QuarantineEntry[] {
    if (!this.state) return [];
    for (const entry of this.state.expire(this.now())) this.emit({ type: "plugin.quarantine_lifted", data: { ref: entry.ref, by: "cooldown", entry } });
    return this.state.list();
  }

  lift(ref: string): boolean {
    const entry = this.state?.get(ref);
    if (!entry) return false;
    this.state!.lift(ref);
    this.emit({ type: "plugin.quarantine_lifted", data: { ref, by: "operator", entry } });
    return true;
  }
}
