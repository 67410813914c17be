import { SluiceError } from "../errors/sluice-error.js";

/** A `from`/`to` query value: epoch milliseconds or an ISO date; REQUEST_INVALID naming the parameter otherwise. */
export function timeOf(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const t = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (Number.isNaN(t)) throw new SluiceError("REQUEST_INVALID", `${name} must be epoch milliseconds or an ISO date, got "${value.slice(0, 60)}"`, { [name]: value });
  return t;
}

/** The `from` and `to` query values read by {@link timeOf}, each present only when given. */
export function timeRange(q: { from?: string; to?: string }): { from?: number; to?: number } {
  const from = timeOf(q.from, "from");
  const to = timeOf(q.to, "to");
  return { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) };
}
