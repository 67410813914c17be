/**
 * Two processes writing one registry database at once, on one SQLite file and on
 * one PostgreSQL database: every publish gets its
 * own revision, numbered without gaps, and one plugin version inserted with two different
 * codes is stored once, the other writer getting VERSION_CONFLICT.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { openPostgresStores } from "../../host/registry/postgres-stores.js";
import { openSqliteStore } from "../../host/registry/sqlite-store.js";
import type { RegistryStore } from "../../host/registry/store.js";
import { filesAppear, runCompiled, type Child } from "../helpers/child.js";
import { testDatabaseUrl } from "../helpers/postgres.js";
import { tempFile } from "../helpers/store-engines.js";

const children: Child[] = [];
afterEach(() => { for (const c of children.splice(0)) if (c.process.exitCode === null) c.process.kill("SIGKILL"); });

interface Opened { store: RegistryStore; close(): Promise<void> }
const ENGINES: { name: string; url: () => Promise<string | undefined>; open: (file: string, url: string | undefined) => Promise<Opened> }[] = [
  { name: "SQLite", url: async () => undefined, open: async (file) => { const store = openSqliteStore(file); return { store, close: () => store.close() }; } },
  {
    name: "PostgreSQL", url: () => testDatabaseUrl("writers"),
    open: async (_file, url) => { const stores = await openPostgresStores(url!, { max: 2 }); return { store: stores.registry, close: () => stores.close() }; },
  },
];

describe.each(ENGINES)("on $name", ({ url: urlOf, open }) => it("two processes publishing at once get unique, gapless revisions, and one of two codes for one version is VERSION_CONFLICT", async () => {
  const file = tempFile("concurrent");
  const url = await urlOf();
  // Migrated once before the writers start.
  await (await open(file, url)).close();
  const per = 25;
  const tags = ["alpha", "beta"];
  for (const tag of tags) children.push(runCompiled("test/registry/writer-child.js", [file, tag, String(per), ...(url ? [url] : [])]));
  await filesAppear("/", tags.map((t) => `${file}.ready-${t}`.slice(1)), children);
  writeFileSync(`${file}.go`, "");
  await filesAppear("/", tags.map((t) => `${file}.${t}.json`.slice(1)), children, 60_000);
  const results = tags.map((t) => JSON.parse(readFileSync(`${file}.${t}.json`, "utf8")) as { revisions: number[]; insert: string });

  const all = results.flatMap((r) => r.revisions).sort((a, b) => a - b);
  expect(all).toEqual(Array.from({ length: 2 * per }, (_, i) => i + 1));
  expect(results.map((r) => r.insert).sort()).toEqual(["VERSION_CONFLICT", "inserted"]);

  const { store, close } = await open(file, url);
  const releases = await store.listReleases();
  expect(releases.map((r) => r.revision)).toEqual(all);
  // Each release read the latest revision inside its transaction: based_on is always the one before.
  expect(releases.map((r) => r.based_on)).toEqual([null, ...all.slice(0, -1)]);
  expect(await store.listPlugins("shared")).toHaveLength(1);
  await close();
}, 120_000));
