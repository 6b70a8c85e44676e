/**
 * What `flex` exits with. A command that follows a run (run, events --follow) exits with the code of
 * where the run stands when it stops following; every other command exits 0 when it did what it
 * was asked. Scripts may rely on these: they are documented in docs/cli.md and `flex --help`.
 */
export const EXIT = {
  /** Done; a run the command followed completed. */
  ok: 0,
  /** Any other error: an API error not listed below (404, 409, 5xx), or a bug. */
  error: 1,
  /** Bad input: unknown command or flag, a missing or malformed argument, an unreadable file, HTTP 400. */
  usage: 2,
  /** The run failed (run_failed). */
  failed: 3,
  /** The run was cancelled (run_cancelled). */
  cancelled: 4,
  /** The run is paused (run_paused): `run.resume` continues it. */
  paused: 5,
  /** The run waits for a human (a pending HITL request): `flex hitl approve|reject` decides. */
  waitingForHuman: 6,
  /** Flex cannot be reached, or is not ready (connection refused, HTTP 502/503/504). */
  unreachable: 7,
  /** No API token, or the token may not do this (HTTP 401, 403). */
  unauthorized: 8,
  /** `flex replay --verify` (a problem in the run's record, or a divergence when re-deciding it), `flex verify` or `flex verify-export` found problems. */
  verifyFailed: 9,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The table `flex --help` prints and docs/cli.md repeats. */
export const EXIT_CODE_HELP = `exit codes:
  0  ok: done; a followed run completed
  1  error: an API error not listed here (404, 409, 5xx)
  2  bad input: unknown command or flag, missing or bad argument, unreadable file, HTTP 400
  3  the run failed
  4  the run was cancelled
  5  the run is paused
  6  the run is waiting for a human (HITL); add --wait to wait for the decision
  7  Flex is unreachable or not ready (connection refused, HTTP 502/503/504)
  8  not authorized: no token, HTTP 401 or 403
  9  replay --verify, verify or verify-export found problems (a tampered record)`;
