import { defineConfig } from "vitest/config";

// The suite in three projects, so a developer runs only what a change needs (docs/testing.md).
// unit: in the test's own process, no PostgreSQL, no browser, files in parallel.
// integration: needs PostgreSQL, starts other processes (the `sluice` CLI, node children, npm)
// or packs the tarball; one file at a time, as its files start servers and processes.
// browser: the console driven by Debian's chromium.

const INTEGRATION = [
  "test/abi/c-sdk-vectors.test.ts",
  "test/abi/reply-encoding.test.ts",
  "test/abi/rust-sdk-vectors.test.ts",
  "test/cli/languages.test.ts",
  "test/plugins/reference-plugins.test.ts",
  "test/postgres/**/*.test.ts",
  "test/multihost/**/*.test.ts",
  "test/adapters/readme-examples.test.ts",
  "test/agents-door/door-store.contract.test.ts",
  "test/agents-door/sluice-hook.test.ts",
  "test/agents-door/two-hosts.test.ts",
  "test/api/logging.test.ts",
  "test/bench/smoke.test.ts",
  "test/cli/authoring.test.ts",
  "test/cli/call.test.ts",
  "test/cli/guest-logs.test.ts",
  "test/cli/cli.test.ts",
  "test/cli/conventions.test.ts",
  "test/cli/keys.test.ts",
  "test/cli/readme.test.ts",
  "test/cli/replay.test.ts",
  "test/cli/serve-database.test.ts",
  "test/cli/token.test.ts",
  "test/contract/api-tokens.contract.test.ts",
  "test/events/schemas.test.ts",
  "test/gateway/accept-queue.test.ts",
  "test/gateway/descriptor-limit.test.ts",
  "test/gateway/key-revocation.test.ts",
  "test/gateway/key-store.contract.test.ts",
  "test/gateway/serve-queue.test.ts",
  "test/package/lazy-imports.test.ts",
  "test/package/doc-examples.test.ts",
  "test/package/tarball.test.ts",
  "test/records/control-audit.contract.test.ts",
  "test/records/crash.test.ts",
  "test/records/cross-host.test.ts",
  "test/records/postgres-round-trips.test.ts",
  "test/records/sealed-serve.test.ts",
  "test/records/sealed.test.ts",
  "test/records/store.contract.test.ts",
  "test/records/unreadable-recovery.test.ts",
  "test/records/wal-thread.test.ts",
  "test/records/writer-crash.test.ts",
  "test/registry/concurrent-writers.test.ts",
  "test/registry/postgres-artifacts.test.ts",
  "test/registry/postgres-concurrency.test.ts",
  "test/registry/postgres-registry.test.ts",
  "test/registry/release-feed-postgres.test.ts",
  "test/registry/store.contract.test.ts",
  "test/reliability/quarantine-store.contract.test.ts",
  "test/sandbox/first-overflow.test.ts",
  "test/sandbox/kv-store.contract.test.ts",
  "test/sandbox/lanes.test.ts",
  "test/sandbox/postgres-kv.test.ts",
  "test/sandbox/table-bomb-process.test.ts",
  "test/storage/postgres-engine.test.ts",
  // The coding-agent CLIs as real clients, each in a loopback-only network namespace.
  "test/agents/**/*.test.ts",
];

const BROWSER = [
  "test/console/console.test.ts",
  "test/console/fleet.test.ts",
  "test/console/roles.test.ts",
  "test/console/trends.test.ts",
];

const INTEGRATION_SETUP = [
  "test/setup/postgres.ts",
  "test/setup/toolchains.ts",
  "test/setup/agents.ts",
];

const BROWSER_SETUP = [
  "test/setup/chromium.ts",
  "test/setup/postgres.ts",
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: [...INTEGRATION, ...BROWSER],
          fileParallelism: true,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: INTEGRATION,
          globalSetup: INTEGRATION_SETUP,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: "browser",
          include: BROWSER,
          globalSetup: BROWSER_SETUP,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
