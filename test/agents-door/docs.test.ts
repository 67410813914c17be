import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderAgentDocs, withAgentDocs } from "../../host/agents/mapping-docs.js";
import { AGENTS } from "../../host/agents/agents.js";
import { AGENT_TABLE } from "../../host/agents/mapping.js";

const file = new URL("../../docs/agents.md", import.meta.url);

describe("docs/agents.md", () => {
  it("holds the mapping as the table renders it (npm run docs:agents)", () => {
    const text = readFileSync(file, "utf8");
    expect(withAgentDocs(text)).toBe(text);
  });

  it("lists every agent's every mapped event", () => {
    const rendered = renderAgentDocs();
    for (const agent of AGENTS) for (const event of Object.keys(AGENT_TABLE[agent].events)) expect(rendered).toContain(`| ${agent} | \`${event}\` |`);
  });
});
