// The agents' door store on every engine: pairing (first in, first out per key; once; expiry; bounded) and the event log.
import { afterAll, describe, expect, it } from "vitest";
import type { AgentDoorLimits, AgentDoorStore, PairKey } from "../../host/records/agent-door-store.js";
import { openSqliteAgentDoor } from "../../host/records/sqlite-agent-door-store.js";
import { memoryEventLog } from "../../host/agents/event-log.js";
import { memoryPairing } from "../../host/agents/pairing.js";
import { openPostgresStores, type PostgresStores } from "../../host/registry/postgres-stores.js";
import { postgresAgentDoor } from "../../host/records/postgres-agent-door-store.js";
import { tempFile } from "../helpers/store-engines.js";
import { testDatabaseUrl } from "../helpers/postgres.js";

const opened: PostgresStores[] = [];
afterAll(async () => { for (const s of opened) await s.close(); });

async function postgresPair(limits: Partial<AgentDoorLimits>): Promise<[AgentDoorStore, AgentDoorStore]> {
  const url = await testDatabaseUrl("agent-door");
  const a = await openPostgresStores(url);
  const b = await openPostgresStores(url);
  opened.push(a, b);
  return [postgresAgentDoor(a.db, limits), postgresAgentDoor(b.db, limits)];
}

const ENGINES: { name: string; open: (limits: Partial<AgentDoorLimits>) => Promise<AgentDoorStore> }[] = [
  { name: "memory", open: async (l) => ({ pairing: memoryPairing(l), events: memoryEventLog(l.max), close: async () => {} }) },
  { name: "sqlite", open: async (l) => openSqliteAgentDoor(tempFile("agent-door"), l) },
  { name: "postgres", open: async (l) => (await postgresPair(l))[0] },
];

const claude = (session: string, useId: string): PairKey => ({ keyId: "gk_1", sessionId: session, toolUseId: useId, toolId: "shell", inputDigest: "d-any" });
const gemini = (session: string, input: string): PairKey => ({ keyId: "gk_1", sessionId: session, toolUseId: null, toolId: "shell", inputDigest: input });

for (const engine of ENGINES) {
  describe(`the agents' door store on ${engine.name}`, () => {
    it("pairs a post with its pre by tool-use id, across interleaved sessions", async () => {
      const s = await engine.open({});
      await s.pairing.open(claude("s1", "t1"), "op-1", 1);
      await s.pairing.open(claude("s2", "t1"), "op-2", 2);
      await s.pairing.open(claude("s1", "t2"), "op-3", 3);
      expect(await s.pairing.take(claude("s2", "t1"), "post", 4)).toEqual({ kind: "found", operationId: "op-2" });
      expect(await s.pairing.take(claude("s1", "t2"), "post", 5)).toEqual({ kind: "found", operationId: "op-3" });
      expect(await s.pairing.take(claude("s1", "t1"), "post", 6)).toEqual({ kind: "found", operationId: "op-1" });
      await s.close();
    });

    it("pairs posts without a tool-use id first in, first out, and recognises a repeated post", async () => {
      const s = await engine.open({});
      await s.pairing.open(gemini("g", "d-date"), "op-a", 1);
      await s.pairing.open(gemini("g", "d-date"), "op-b", 2);
      expect(await s.pairing.take(gemini("g", "d-date"), "out-1", 3)).toEqual({ kind: "found", operationId: "op-a" });
      expect(await s.pairing.take(gemini("g", "d-date"), "out-2", 4)).toEqual({ kind: "found", operationId: "op-b" });
      expect(await s.pairing.take(gemini("g", "d-date"), "out-2", 5)).toEqual({ kind: "repeated" });
      expect(await s.pairing.take(gemini("g", "d-other"), "out-3", 6)).toEqual({ kind: "missing" });
      await s.close();
    });

    it("expires a pre whose post never comes, and keeps at most max pres", async () => {
      const s = await engine.open({ ttlMs: 1000, max: 2 });
      await s.pairing.open(claude("s", "old"), "op-old", 0);
      await s.pairing.open(claude("s", "a"), "op-a", 900);
      await s.pairing.open(claude("s", "b"), "op-b", 950);
      await s.pairing.open(claude("s", "c"), "op-c", 990);
      expect(await s.pairing.expire(1000)).toEqual(["op-old", "op-a"]);
      expect(await s.pairing.take(claude("s", "old"), "p", 1001)).toEqual({ kind: "missing" });
      expect(await s.pairing.take(claude("s", "c"), "p", 1002)).toEqual({ kind: "found", operationId: "op-c" });
      await s.close();
    });

    it("opens at most maxPerKey pres per hooks key, so one key cannot crowd out another's", async () => {
      const s = await engine.open({ maxPerKey: 2 });
      expect(await s.pairing.open(claude("s", "a"), "op-a", 1)).toBe(true);
      expect(await s.pairing.open(gemini("s", "d-b"), "op-b", 2)).toBe(true);
      expect(await s.pairing.open(claude("s2", "c"), "op-c", 3)).toBe(false);
      expect(await s.pairing.open({ ...claude("s", "c"), keyId: "gk_2" }, "op-other-key", 4)).toBe(true);
      expect(await s.pairing.take(claude("s", "a"), "post", 5)).toEqual({ kind: "found", operationId: "op-a" });
      expect(await s.pairing.open(claude("s2", "c"), "op-c", 6)).toBe(true);
      expect(await s.pairing.take(claude("s2", "c"), "post", 7)).toEqual({ kind: "found", operationId: "op-c" });
      await s.close();
    });

    it("lets a pre claim its tool-use id once within the time a pre waits, whether or not its post came", async () => {
      const s = await engine.open({ ttlMs: 1000 });
      expect(await s.pairing.claim(claude("s", "t1"), 1)).toBe(true);
      expect(await s.pairing.claim(claude("s", "t1"), 2)).toBe(false);
      expect(await s.pairing.claim(claude("s2", "t1"), 3)).toBe(true);
      expect(await s.pairing.claim({ ...claude("s", "t1"), keyId: "gk_2" }, 4)).toBe(true);
      await s.pairing.open(claude("s", "t1"), "op-1", 5);
      expect(await s.pairing.take(claude("s", "t1"), "post", 6)).toEqual({ kind: "found", operationId: "op-1" });
      expect(await s.pairing.claim(claude("s", "t1"), 7)).toBe(false);
      await s.close();
    });

    it("counts events per agent and event, with the last answer, within a space when asked", async () => {
      const s = await engine.open({ max: 3 });
      const e = (at: number, event: string, outcome: "continue" | "deny" | "refused", spaceId: string | null) => ({ at, agent: "claude-code", event, spaceId, outcome, code: null, bodyDigest: "b", operationId: null });
      await s.events.add(e(1000, "PreToolUse", "continue", "a"));
      await s.events.add(e(2000, "PreToolUse", "deny", "b"));
      await s.events.add(e(3000, "PostToolUse", "continue", "a"));
      await s.events.add(e(4000, "PreToolUse", "refused", null));
      expect(await s.events.summary()).toEqual([
        { agent: "claude-code", event: "PreToolUse", count: 3, lastSeenAt: new Date(4000).toISOString(), lastOutcome: "refused" },
        { agent: "claude-code", event: "PostToolUse", count: 1, lastSeenAt: new Date(3000).toISOString(), lastOutcome: "continue" },
      ]);
      expect(await s.events.summary("b")).toEqual([{ agent: "claude-code", event: "PreToolUse", count: 1, lastSeenAt: new Date(2000).toISOString(), lastOutcome: "deny" }]);
      expect((await s.events.recent(10)).map((r) => r.at)).toEqual([4000, 3000, 2000]);
      await s.close();
    });
  });
}

describe("two hosts sharing one PostgreSQL", () => {
  it("pair a pre opened on one host with the post reaching the other, once, even when two posts race", async () => {
    const [a, b] = await postgresPair({});
    await a.pairing.open(gemini("g", "d-x"), "op-1", 1);
    await b.pairing.open(gemini("g", "d-x"), "op-2", 2);
    const [first, second] = await Promise.all([b.pairing.take(gemini("g", "d-x"), "o1", 3), a.pairing.take(gemini("g", "d-x"), "o2", 3)]);
    expect([first, second].map((t) => (t.kind === "found" ? t.operationId : t.kind)).sort()).toEqual(["op-1", "op-2"]);
    expect(await a.pairing.take(gemini("g", "d-x"), "o1", 4)).toEqual({ kind: "repeated" });
  });
});

describe("two hosts sharing one PostgreSQL, claiming", () => {
  it("let exactly one of two racing pres claim a tool-use id", async () => {
    const [a, b] = await postgresPair({});
    const claims = await Promise.all([a.pairing.claim(claude("race", "t"), 1), b.pairing.claim(claude("race", "t"), 1), a.pairing.claim(claude("race", "t"), 1)]);
    expect(claims.filter(Boolean)).toHaveLength(1);
  });
});
