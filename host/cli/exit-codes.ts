/**
 * The exit codes of `sluice`, one per kind of failure, so scripts can tell a typo from a
 * refusal from a server that is down. Documented in docs/cli.md ("Conventions").
 */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** The command ran and found failures: a sample failed, a replay changed something (with --exit-code). */
  failed: 1,
  /** The command line is wrong: unknown command or option, a flag's value malformed, no plugin folder. */
  usage: 2,
  /** Refused: the server (or the same check run locally) said no: invalid manifest, config or binding, wrong token, conflict. */
  refused: 3,
  /** What was named does not exist: plugin, binding, release, operation. */
  notFound: 4,
  /** The server cannot be reached. */
  unreachable: 5,
  /** Anything else: a server error (5xx) or a bug in sluice. */
  internal: 70,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
