/** What the fixture recorders (record-fixtures.ts, record-model-requests.ts) write in place of this run's paths, ids, times and keys. */
import type { AgentWorld } from "./clis.js";

/** Replaces what names this run or this machine with stable placeholders, keeping the shape. */
export function scrub(text: string, world: AgentWorld, root: string): string {
  let out = text.split(world.project).join("/tmp/agent-world/project");
  out = out.split(world.home).join("/tmp/agent-world/home");
  out = out.split(root).join("/tmp/agent-world");
  // Claude Code names a project's transcript folder after its path, every non-alphanumeric a dash.
  out = out.split(root.replace(/[^A-Za-z0-9]/g, "-")).join("-tmp-agent-world");
  out = out.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "00000000-0000-4000-8000-000000000000");
  out = out.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, "2026-01-01T00:00:00.000Z");
  out = out.replace(/"timestamp":\s*\d{10,}/g, '"timestamp": 1767225600000');
  out = out.replace(/sk-[A-Za-z0-9_-]{8,}/g, "sk-REDACTED");
  return out;
}
