/**
 * The coding agents whose hooks reach Sluice through the door (door.ts), by the names users
 * type (`sluice agents setup <agent>`, `sluice-hook <agent> <event>`, the door's path).
 */
export const AGENTS = ["claude-code", "codex", "gemini-cli", "copilot-cli"] as const;
export type Agent = (typeof AGENTS)[number];

export function isAgent(value: string): value is Agent {
  return (AGENTS as readonly string[]).includes(value);
}
