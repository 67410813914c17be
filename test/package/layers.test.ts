// The layers of host/ and abi/, top to bottom (docs/layout.md): a file imports only
// from its own folder or from folders below it. The only exception is a folder's public
// face (an index.ts that re-exports, such as host/gateway/index.ts for `sluice/gateway`),
// which may gather what its entry offers from anywhere.
import { relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/fixtures.js";
import { sources } from "../helpers/sources.js";
import { importGraph } from "../helpers/import-graph.js";

export const LAYERS: readonly (readonly string[])[] = [
  ["host/cli"],
  ["host/demo"],
  ["host/api"],
  ["host/gateway", "host/adapters", "host/toolchain", "host/agents"],
  ["host/registry"],
  ["host/index.ts"],
  ["host/host.ts"],
  ["host/events"],
  ["host/boundary"],
  ["host/engine"],
  ["host/records", "host/reliability"],
  ["host/keys"],
  ["host/http"],
  ["host/sandbox"],
  ["host/telemetry"],
  ["host/pipeline"],
  ["host/storage"],
  ["host/errors", "host/objects"],
  ["abi"],
];

/** The folder (or top-level file) a path belongs to, and its layer: 0 is the top. */
function placed(path: string): { room: string; layer: number } {
  const parts = path.split("/");
  const room = parts[0] === "abi" ? "abi" : `host/${parts[1]}`;
  return { room, layer: LAYERS.findIndex((l) => l.includes(room)) };
}

function upward(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const [file, deps] of graph) {
    const from = relative(repoRoot, file);
    if (from !== "host/index.ts" && from.endsWith("/index.ts")) continue;
    const a = placed(from);
    for (const dep of deps) {
      const to = relative(repoRoot, dep);
      const b = placed(to);
      if (a.room !== b.room && b.layer < a.layer) found.push(`${from} → ${to}`);
    }
  }
  return found;
}

describe("the layers of host/ and abi/", () => {
  const graph = importGraph([...sources(`${repoRoot}/host`), ...sources(`${repoRoot}/abi`)]);

  it("place every folder of host/", () => {
    const unplaced = [...new Set([...graph.keys()].map((f) => placed(relative(repoRoot, f))).filter((p) => p.layer < 0).map((p) => p.room))];
    expect(unplaced).toEqual([]);
  });

  it("have no import that points from a lower layer to a higher one", () => {
    expect(upward(graph)).toEqual([]);
  });

  it("would report one (the check is not blind)", () => {
    const file = `${repoRoot}/host/pipeline/x.ts`;
    expect(upward(new Map([[file, [`${repoRoot}/host/engine/stage.ts`]]]))).toEqual(["host/pipeline/x.ts → host/engine/stage.ts"]);
  });
});
