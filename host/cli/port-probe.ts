/**
 * Checks that `sluice serve` can listen before it opens anything: a second server started
 * on a port in use must fail before it migrates a database, writes a digest key or a token,
 * and say how to pick another port.
 */
import { createServer } from "node:net";
import { EXIT } from "./exit-codes.js";
import { CliError } from "./output.js";

/** The usage error for a port another process holds, naming the flag and variable to change. */
export function portInUse(host: string, port: number, flag = "--port", env = "SLUICE_PORT"): CliError {
  return new CliError(`cannot listen on ${host}:${port}: the port is in use (another sluice serve?); nothing was changed`, `pick another port with ${flag} <port> or ${env} (0: any free port)`, EXIT.usage);
}

/** Resolves when `host:port` can be bound now (port 0 always can); rejects with {@link portInUse} otherwise. */
export function probePort(host: string, port: number, flag?: string, env?: string): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (err: NodeJS.ErrnoException) => reject(err.code === "EADDRINUSE" ? portInUse(host, port, flag, env) : err));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve()));
  });
}
