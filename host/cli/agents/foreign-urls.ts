/**
 * URLs in an agent's settings that point somewhere other than the Sluice server: hook URLs
 * and commands, and model base URLs. A hostile repository can point an agent's hooks (and so
 * the hook key) or its model traffic (and so the model key) at its own server; `sluice agents
 * status` names each one with the file and the setting it sits in.
 */
import { readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import type { AgentId } from "./events.js";
import { isObject } from "./merge.js";
import type { ReadFile } from "./setup.js";

export interface ForeignUrl {
  agent: AgentId;
  file: string;
  /** The setting, as a dotted path (`hooks.PreToolUse[0].hooks[0].url`, `env.ANTHROPIC_BASE_URL`). */
  setting: string;
  url: string;
}

const URLS = /https?:\/\/[^\s'"`<>)]+/g;
const URL_KEY = /(^|_)(base_?url|url|endpoint|host)$/i;

/** Every URL under a hook table or in a setting named like a URL, with its path. */
export function urlsIn(value: unknown, path = "", underHooks = false): Array<{ setting: string; url: string }> {
  if (typeof value === "string") {
    const key = path.split(/[.[\]]/).filter(Boolean).at(-1) ?? "";
    if (!underHooks && !URL_KEY.test(key)) return [];
    return [...value.matchAll(URLS)].map((m) => ({ setting: path, url: m[0] }));
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => urlsIn(v, `${path}[${i}]`, underHooks));
  if (isObject(value)) {
    return Object.entries(value).flatMap(([k, v]) => urlsIn(v, path ? `${path}.${k}` : k, underHooks || k === "hooks"));
  }
  return [];
}

/** Whether `url` is on the server's host (the gateway and the API may use different ports). */
export function sameHost(url: string, server: string): boolean {
  try {
    const a = new URL(url);
    const b = new URL(server);
    return a.protocol === b.protocol && a.hostname === b.hostname;
  } catch {
    return false;
  }
}

function parseSettings(path: string, text: string): unknown {
  if (path.endsWith(".toml")) return parseToml(text);
  if (path.endsWith(".env") || path.endsWith("/.env")) {
    return Object.fromEntries(text.split("\n").map((l) => /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*["']?([^"'\n]*)/.exec(l)).filter((m) => m !== null).map((m) => [m[1]!, m[2]!]));
  }
  return JSON.parse(text);
}

function jsonFilesIn(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".json")).map((f) => join(dir, f)) : [];
}

/** The settings files each agent reads, project first, then the user's. */
export function settingsFiles(agent: AgentId, where: { projectDir: string; home: string; codexHome?: string }): string[] {
  const { projectDir: p, home: h } = where;
  switch (agent) {
    case "claude-code":
      return [join(p, ".claude/settings.json"), join(p, ".claude/settings.local.json"), join(h, ".claude/settings.json")];
    case "gemini-cli":
      return [join(p, ".gemini/settings.json"), join(p, ".gemini/.env"), join(p, ".env"), join(h, ".gemini/settings.json"), join(h, ".gemini/.env")];
    case "copilot-cli":
      return [...jsonFilesIn(join(p, ".github/hooks")), ...jsonFilesIn(join(h, ".copilot/hooks")), join(h, ".copilot/config.json")];
    case "codex": {
      const homes = [join(p, ".codex"), where.codexHome ?? join(h, ".codex")];
      return [...new Set(homes)].flatMap((d) => [join(d, "hooks.json"), join(d, "config.toml")]);
    }
  }
}

/** The URLs in `agent`'s settings that are not on `server`'s host; unreadable files are skipped. */
export function foreignUrls(agent: AgentId, server: string, where: { projectDir: string; home: string; codexHome?: string }, read: ReadFile): ForeignUrl[] {
  const found: ForeignUrl[] = [];
  for (const file of settingsFiles(agent, where)) {
    const text = read(file);
    if (text === undefined) continue;
    let settings: unknown;
    try { settings = parseSettings(file, text); } catch { continue; }
    for (const { setting, url } of urlsIn(settings)) if (!sameHost(url, server)) found.push({ agent, file, setting, url });
  }
  return found;
}
