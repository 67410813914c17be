import type { ErrorData } from "../errors/sluice-error.js";
import type { StepReport } from "../pipeline/run-steps.js";

/** What a stage asks before running guest steps and tells after; implemented by plugin-quarantine.ts, consulted by host/engine/stage.ts. */
export interface StageGuard {
  /** An error when the plugin `hookRef` must not run now: its step fails with it, under its binding's failure policy. */
  blocked(hookRef: string): ErrorData | undefined;
  observe(report: StepReport): void;
}
