/**
 * Two processes writing one registry database at once (issue 18): every publish gets its
 * own revision, numbered without gaps, and one plugin version inserted with two different
 * codes is stored once, the other writer getting VERSION_CONFLICT.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { openSqliteStore } from "../../host/registry/sqlite-store.js";
import { filesAppear, runCompiled, type Child } from "../helpers/child.js";
import { tempFile } from "../helpers/store-engines.js";

const children: Child[] = [];
afterEach(() => { for (const c of children.splice(0)) if (c.process.exitCode === null) c.process.kill("SIGKILL"); });

it("two processes publishing at once get unique, gapless revisions, and one of two codes for one version is VERSION_CONFLICT", async () => {
  const file = tempFile("concurrent");
  await openSqliteStore(file).close();
  const per = 25;
  const tags = ["alpha", "beta"];
  for (const tag of tags) children.push(runCompiled("test/registry/writer-child.js", [file, tag, String(per)]));
  await filesAppear("/", tags.map((t) => `${file}.ready-${t}`.slice(1)), children);
  writeFileSync(`${file}.go`, "");
  await filesAppear("/", tags.map((t) => `${file}.${t}.json`.slice(1)), children, 60_000);
  const results = tags.map((t) => JSON.parse(readFileSync(`${file}.${t}.json`, "utf8")) as { revisions: number[]; insert: string });

  const all = results.flatMap((r) => r.revisions).sort((a, b) => a - b);
  expect(all).toEqual(Array.from({ length: 2 * per }, (_, i) => i + 1));
  expect(results.map((r) => r.insert).sort()).toEqual(["VERSION_CONFLICT", "inserted"]);

  const store = openSqliteStore(file);
  const releases = await store.listReleases();
  expect(releases.map((r) => r.revision)).toEqual(all);
  // Each release read the latest revision inside its transaction: based_on is always the one before.
  expect(releases.map((r) => r.based_on)).toEqual([null, ...all.slice(0, -1)]);
  expect(await store.listPlugins("shared")).toHaveLength(1);
  await store.close();
}, 120_000);
