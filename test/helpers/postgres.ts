import { inject } from "vitest";
import { createDatabase } from "./postgres-server.js";

/**
 * A new, empty database on the run's PostgreSQL server (test/setup/postgres.ts): its URL.
 * Only the projects whose set-up starts that server provide it; a file that calls this from
 * the unit project is told where it belongs instead of failing on an undefined URL.
 */
export function testDatabaseUrl(label: string): Promise<string> {
  const server = inject("postgresUrl");
  if (!server) {
    throw new Error("this test file needs PostgreSQL: list it in the integration project in vitest.config.ts, whose set-up starts the server");
  }
  return createDatabase(server, label);
}
