/**
 * Global set-up of the projects that need PostgreSQL (integration, browser): one server for
 * the project's run, started from the npm package's binaries (test/helpers/postgres-server.ts)
 * and stopped at teardown. Test files reach it through `inject("postgresUrl")` and take a
 * database of their own (test/helpers/postgres.ts), so files never see each other's rows.
 * SLUICE_TEST_POSTGRES_URL points the run at a server you already have instead.
 */
import type { TestProject } from "vitest/node";
import { startPostgres } from "../helpers/postgres-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.SLUICE_TEST_POSTGRES_URL;
  const server = external ? undefined : await startPostgres();
  project.provide("postgresUrl", external ?? server!.url);
  return async () => {
    await server?.stop();
  };
}
