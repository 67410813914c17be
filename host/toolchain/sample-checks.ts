/**
 * What the server would refuse, refused by the sample runner too, with the same code: a
 * sample's config is checked against the plugin's config_schema (registry/config-schema.ts,
 * as a binding write is), its point must be one the manifest declares (as bind requires),
 * and an `expect` key the runner does not know is an error, not a silently skipped check.
 */
import { isSluiceError } from "../errors/sluice-error.js";
import { checkConfig } from "../registry/config-schema.js";
import { closest } from "../registry/validation-message.js";

/** Every key an `expect` may have (see Expectation in samples.ts). */
export const EXPECT_KEYS = ["outcome", "payload", "code", "reason", "annotations", "result", "carry", "error", "emitted", "blocked", "outcomes"] as const;

/** What the checks read of a sample (samples.ts's Sample has these fields). */
interface SampleView {
  point?: string;
  config?: unknown;
  expect?: unknown;
  sequence?: { point: string; config?: unknown; expect?: unknown }[];
}

interface ManifestView {
  id: string;
  version: string;
  points: Record<string, unknown>;
  config_schema?: Record<string, unknown>;
}

/** The problems of one sample against its plugin's manifest; empty when it may run. */
export function sampleProblems(sample: SampleView, manifest: ManifestView): string[] {
  const problems: string[] = [];
  const ref = `${manifest.id}@${manifest.version}`;
  const declared = Object.keys(manifest.points);
  const steps = sample.sequence
    ? sample.sequence.map((s, i) => ({ label: `sequence/${i}: `, point: s.point as string | undefined, config: s.config ?? sample.config, expect: s.expect }))
    : [{ label: "", point: sample.point, config: sample.config, expect: sample.expect }];
  for (const step of steps) {
    if (step.point !== undefined && !declared.includes(step.point)) {
      problems.push(`${step.label}point ${JSON.stringify(step.point)} is not declared in hook.yaml (it declares ${declared.join(", ")}); bind would refuse it`);
    }
    try {
      checkConfig(manifest.config_schema ?? { type: "object" }, step.config ?? {}, ref);
    } catch (err) {
      if (!isSluiceError(err)) throw err;
      problems.push(`${step.label}config: ${err.code}: ${err.message}`);
    }
    if (step.expect !== undefined && (typeof step.expect !== "object" || step.expect === null || Array.isArray(step.expect))) {
      problems.push(`${step.label}"expect" must be an object`);
      continue;
    }
    for (const key of Object.keys((step.expect ?? {}) as object)) {
      if ((EXPECT_KEYS as readonly string[]).includes(key)) continue;
      const guess = closest(key, EXPECT_KEYS);
      problems.push(`${step.label}unknown expect key ${JSON.stringify(key)}${guess ? ` (did you mean ${JSON.stringify(guess)}?)` : ""}; allowed: ${EXPECT_KEYS.join(", ")}`);
    }
  }
  return problems;
}
