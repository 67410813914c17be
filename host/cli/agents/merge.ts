/**
 * Merging Sluice's hooks into an agent's hook table without touching anything else: the
 * handlers a previous setup wrote are taken out first (so a rerun replaces them, and a
 * changed URL or key variable does not leave a stale hook behind), then one handler per
 * event is added. The user's own hooks, matchers and settings stay as they were.
 */
import { isSluiceHook } from "./hook-command.js";

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isOurs(handler: unknown): boolean {
  return isObject(handler) && (isSluiceHook(handler.command) || isSluiceHook(handler.bash) || isSluiceHook(handler.url));
}

/**
 * Claude Code, Codex and Gemini CLI: `{ Event: [{ matcher?, hooks: [handler, ...] }] }`.
 * A group left empty by taking Sluice's handler out goes; a group the user left empty stays.
 */
export function mergeGroupedHooks(existing: unknown, events: readonly string[], handlerFor: (event: string) => Json): Json {
  const hooks: Json = isObject(existing) ? { ...existing } : {};
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    const kept: unknown[] = [];
    for (const group of groups) {
      if (!isObject(group) || !Array.isArray(group.hooks) || !group.hooks.some(isOurs)) { kept.push(group); continue; }
      const rest = group.hooks.filter((h) => !isOurs(h));
      if (rest.length > 0) kept.push({ ...group, hooks: rest });
    }
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
  }
  for (const event of events) {
    const groups = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [];
    hooks[event] = [...groups, { hooks: [handlerFor(event)] }];
  }
  return hooks;
}

/** Copilot CLI: `{ event: [handler, ...] }`. */
export function mergeFlatHooks(existing: unknown, events: readonly string[], handlerFor: (event: string) => Json): Json {
  const hooks: Json = isObject(existing) ? { ...existing } : {};
  for (const [event, handlers] of Object.entries(hooks)) {
    if (!Array.isArray(handlers)) continue;
    const rest = handlers.filter((h) => !isOurs(h));
    if (rest.length > 0) hooks[event] = rest;
    else delete hooks[event];
  }
  for (const event of events) {
    const handlers = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [];
    hooks[event] = [...handlers, handlerFor(event)];
  }
  return hooks;
}
