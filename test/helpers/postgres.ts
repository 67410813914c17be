import { inject } from "vitest";
import { createDatabase } from "./postgres-server.js";

/** A new, empty database on the run's PostgreSQL server (test/postgres-global-setup.ts): its URL. */
export function testDatabaseUrl(label: string): Promise<string> {
  return createDatabase(inject("postgresUrl"), label);
}
