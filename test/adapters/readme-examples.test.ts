/**
 * The TypeScript examples of docs/adapters.md's "Examples" section, typechecked and run as
 * written: each adapter's block, after the section's shared host block, in a module of its
 * own. The typecheck is strict, against the package's declarations (`sluice/...` resolves to
 * dist/, as for a consumer) with the page's free names (`model`, `upstream`) declared as the
 * framework's own types. The run is Node's, of the same code with its types stripped, the
 * free names being the frameworks' test models from readme-fixtures.ts. Each
 * `// prints: X` comment is a line the example must print, in order. Needs `npm run build` first.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { stripTypes, tsBlocks, typeErrors } from "../helpers/doc-code.js";
import { repoRoot } from "../helpers/fixtures.js";

const PAGE = readFileSync(path.join(repoRoot, "docs/adapters.md"), "utf8");
const FIXTURES = path.join(repoRoot, "dist/test/adapters/readme-fixtures.js");

/** The "## Examples" section: its own ```ts blocks (the shared host) and each "###" sub-section's. */
function adapterSection(): { setup: string[]; adapters: { title: string; blocks: string[] }[] } {
  const start = PAGE.indexOf("\n## Examples\n");
  const end = PAGE.indexOf("\n## ", start + 1);
  const section = PAGE.slice(start, end < 0 ? undefined : end);
  const [intro, ...subs] = section.split(/\n### /);
  return {
    setup: tsBlocks(intro!),
    adapters: subs.map((sub) => ({ title: sub.slice(0, sub.indexOf("\n")), blocks: tsBlocks(sub) })),
  };
}

/** What each example takes as given, by the subpath its section is about. */
const GIVEN: Record<string, string> = {
  "sluice/ai-sdk": `import { aiSdkModel as model } from ${JSON.stringify(FIXTURES)};`,
  "sluice/langchain": `import { langchainModel as model } from ${JSON.stringify(FIXTURES)};`,
  "sluice/openai-agents": `import { agentsModel as model } from ${JSON.stringify(FIXTURES)};`,
  "sluice/mcp": `import { mcpUpstream } from ${JSON.stringify(FIXTURES)};\nconst upstream = await mcpUpstream();`,
};

/** The free names as a reader of the page has them: declared with the framework's own types. */
const DECLARED: Record<string, string> = {
  "sluice/ai-sdk": `declare const model: Parameters<typeof import("ai").wrapLanguageModel>[0]["model"];`,
  "sluice/langchain": `declare const model: import("@langchain/core/language_models/chat_models").BaseChatModel;`,
  "sluice/openai-agents": `declare const model: import("@openai/agents").Model;`,
  "sluice/mcp": `declare const upstream: import("@modelcontextprotocol/sdk/client/index.js").Client;`,
};

const DIR = path.join(repoRoot, "build/readme-examples");

function runModule(file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [file], { cwd: repoRoot, timeout: 60_000, env: { ...process.env, OPENAI_AGENTS_DISABLE_TRACING: "1" } }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

describe("docs/adapters.md's examples", () => {
  const { setup, adapters } = adapterSection();

  it("typecheck, strictly, against the package's declarations and the frameworks' types", () => {
    // Inside the repository, so `sluice/...` and the frameworks resolve as they do for a consumer.
    mkdirSync(DIR, { recursive: true });
    const files = adapters.map((adapter) => {
      const subpath = /`(sluice\/[a-z-]+)`/.exec(adapter.title)![1]!;
      const file = path.join(DIR, `${subpath.replace("/", "-")}.ts`);
      writeFileSync(file, `${DECLARED[subpath]}\n${setup[0]}\n${adapter.blocks[0]}\nexport {};\n`);
      return file;
    });
    expect(typeErrors(files)).toEqual([]);
  }, 60_000);

  it("has one shared host block and one example per adapter (a new example needs an entry here)", () => {
    expect(setup).toHaveLength(1);
    expect(adapters.map((a) => [a.title, a.blocks.length])).toEqual([
      ["AI SDK (`sluice/ai-sdk`)", 1],
      ["LangChain (`sluice/langchain`)", 1],
      ["OpenAI Agents SDK (`sluice/openai-agents`)", 1],
      ["MCP (`sluice/mcp`)", 1],
    ]);
  });

  for (const adapter of adapters) {
    const subpath = /`(sluice\/[a-z-]+)`/.exec(adapter.title)![1]!;
    it(`${subpath}: the example runs as written and prints what its comments say`, async () => {
      const example = adapter.blocks[0]!;
      const expected = [...example.matchAll(/\/\/ prints: (.*)$/gm)].map((m) => m[1]!.trim());
      expect(expected.length).toBeGreaterThan(0);
      // Inside the repository, so `sluice/...` and the frameworks resolve as they do for a consumer.
      mkdirSync(DIR, { recursive: true });
      const file = path.join(DIR, `${subpath.replace("/", "-")}.mjs`);
      writeFileSync(file, `${GIVEN[subpath]}\n${stripTypes(`${setup[0]}\n${example}`)}\nawait host.close();\n`);
      const r = await runModule(file);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout.trim().split("\n")).toEqual(expected);
    });
  }
});
