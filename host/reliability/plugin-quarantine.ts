/**
 * The host's side of quarantine: feeds step reports into the state machine, answers the
 * stage's "may this plugin run?" question, and announces every transition through one
 * callback (the Host turns it into `host.on(...)` events).
 */
import type { ErrorData } from "../errors/sluice-error.js";
import type { StageGuard } from "./stage-guard.js";
import type { StepReport } from "../pipeline/run-steps.js";
import { QUARANTINED_CODE } from "../pipeline/skipped-hooks.js";
import { QuarantineState, resolveQuarantinePolicy, type QuarantineEntry, type QuarantinePolicy } from "./quarantine.js";
import type { QuarantineStore } from "./quarantine-store.js";

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
  /** With a shared store: takes the decisions and lifts other hosts made (done on every change notice). */
  refresh(): Promise<void>;
}

export class PluginQuarantine implements StageGuard, QuarantineControl {
  private readonly state: QuarantineState | undefined;

  /** `policy: false` disables quarantine: nothing is counted, nothing is ever blocked. */
  /**
   * With `store` (shared by the hosts of a fleet), every decision and lift is written there
   * too, and {@link refresh} takes the other hosts' ones. Fault counting stays per host, on
   * the hot path; a write that fails leaves the local decision in force.
   */
  constructor(policy: Partial<QuarantinePolicy> | false, private readonly emit: (event: QuarantineEvent) => void, private readonly now: () => number = Date.now, private readonly store?: QuarantineStore) {
    this.state = policy === false ? undefined : new QuarantineState(resolveQuarantinePolicy(policy));
  }

  async refresh(): Promise<void> {
    const state = this.state;
    if (!state || !this.store) return;
    const shared = new Map((await this.store.list(this.now())).map((e) => [e.ref, e]));
    for (const entry of shared.values()) {
      if (state.get(entry.ref)) continue;
      state.adopt(entry);
      this.emit({ type: "plugin.quarantined", data: { ...entry } });
    }
    for (const entry of state.list()) {
      if (shared.has(entry.ref)) continue;
      state.lift(entry.ref);
      this.emit({ type: "plugin.quarantine_lifted", data: { ref: entry.ref, by: "operator", entry } });
    }
  }

  blocked(hookRef: string): ErrorData | undefined {
    const state = this.state;
    if (!state || state.size === 0) return undefined;
    for (const entry of state.expire(this.now())) this.emit({ type: "plugin.quarantine_lifted", data: { ref: entry.ref, by: "cooldown", entry } });
    const entry = state.get(hookRef);
    if (!entry) return undefined;
    return {
      code: QUARANTINED_CODE,
      message: `plugin ${hookRef} is quarantined after ${entry.failures} faults (last: ${entry.lastError.code}); ${entry.until === null ? "an operator must lift it" : `it is retried after ${new Date(entry.until).toISOString()}`}`,
      details: { ref: hookRef, since: entry.since, until: entry.until, lastError: entry.lastError.code },
    };
  }

  observe(report: StepReport): void {
    if (!this.state || !report.error) return;
    const entry = this.state.record(report.hookRef, report.error, this.now());
    if (!entry) return;
    this.emit({ type: "plugin.quarantined", data: { ...entry } });
    this.store?.put(entry).catch(() => { /* kept locally; the next decision or refresh writes again */ });
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
    this.store?.lift(ref).catch(() => { /* lifted here; another host's refresh may bring it back */ });
    return true;
  }
}
