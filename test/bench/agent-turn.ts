/**
 * A Claude Code `-p` turn (one prompt, one scripted shell call, one answer) three ways in the
 * same run, interleaved: no hooks; a plain node command hook on every event Sluice installs
 * (a script that reads its stdin and exits, the cheapest hook a user writes in node); and
 * Sluice's hooks as `sluice agents setup` writes them, against `sluice serve` from the build
 * with shell-guard deployed. Offline, in a loopback-only network namespace (as root).
 */
import { readFileSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { AGENT_EVENTS } from "../../host/cli/agents/events.js";
import { makeWorld } from "../agents/clis.js";
import { PLUGINS, startAgentBench } from "../agents/harness.js";

export interface AgentTurnTimes {
  noHooksMs: number[];
  plainNodeMs: number[];
  sluiceMs: number[];
  /** Hook events one turn fires (counted by the plain node hooks). */
  eventsPerTurn: number;
}

export async function claudeTurns(rounds: number): Promise<AgentTurnTimes> {
  const bench = await startAgentBench("claude-code", [PLUGINS.shellGuard]);
  try {
    const bare = makeWorld(join(bench.root, "bare"));
    const plain = makeWorld(join(bench.root, "plain"));
    const counter = join(bench.root, "plain-events.log");
    const script = join(bench.root, "plain-hook.mjs");
    writeFileSync(script, `import { appendFileSync } from "node:fs";\nlet input = "";\nprocess.stdin.on("data", (d) => (input += d));\nprocess.stdin.on("end", () => { appendFileSync(${JSON.stringify(counter)}, "x\\n"); });\n`);
    const hooks = Object.fromEntries(AGENT_EVENTS["claude-code"].map((e) => [e, [{ hooks: [{ type: "command", command: `${process.execPath} ${script}`, timeout: 30 }] }]]));
    mkdirSync(join(plain.project, ".claude"), { recursive: true });
    writeFileSync(join(plain.project, ".claude/settings.json"), JSON.stringify({ hooks }, null, 2));
    for (const w of [bare, plain, bench.world]) writeFileSync(join(w.project, "notes.txt"), "hello\n");

    const times: AgentTurnTimes = { noHooksMs: [], plainNodeMs: [], sluiceMs: [], eventsPerTurn: 0 };
    const arms = [[bare, times.noHooksMs], [plain, times.plainNodeMs], [bench.world, times.sluiceMs]] as const;
    // One unmeasured turn each first (the first start of Claude Code's binary reads it from
    // disk), unless this is the smoke run of one round.
    if (rounds > 1) for (const [where] of arms) await bench.turn("cat notes.txt", "Show me notes.txt.", where);
    const warmEvents = existsSync(counter) ? readFileSync(counter, "utf8").split("\n").filter(Boolean).length : 0;
    for (let i = 0; i < rounds; i++) {
      for (const [where, into] of arms) {
        const t0 = performance.now();
        const turn = await bench.turn("cat notes.txt", "Show me notes.txt.", where);
        into.push(performance.now() - t0);
        if (turn.exit.code !== 0 || turn.toolCalls.length === 0) throw new Error(`a Claude Code turn failed (exit ${turn.exit.code}): ${turn.exit.stdout.slice(-500)}${turn.exit.stderr.slice(-500)}`);
      }
    }
    const events = readFileSync(counter, "utf8").split("\n").filter(Boolean).length;
    times.eventsPerTurn = (events - warmEvents) / rounds;
    return times;
  } finally {
    await bench.close();
  }
}
