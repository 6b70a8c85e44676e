import { createLogger } from './telemetry/log';

/**
 * Why a process refuses to start that is the user's to fix, not a bug (a bad setting, a data
 * directory in use, a port taken): said in one line, without a stack trace.
 */
const STARTUP_REFUSALS = new Set([
  'INVALID_CONFIG',
  'DATA_DIR_LOCKED',
  'EADDRINUSE',
  'EADDRNOTAVAIL',
  'EACCES',
]);

/** Where a process that has no runtime yet (or no longer) says why it stops: one JSON line. */
const processLog = createLogger({ service: 'flex', level: 'info' });

/**
 * A process entry point: run `start`, then on SIGTERM / SIGINT run the shutdown it returned once and
 * exit 0; a failure to start (or to stop) is printed and exits 1.
 */
export function runProcess(start: () => Promise<() => Promise<void>>): void {
  start().then(
    (shutdown) => {
      let stopping = false;
      const stop = () => {
        if (stopping) return;
        stopping = true;
        shutdown().then(
          () => process.exit(0),
          (error) => {
            processLog.error('shutdown failed', { err: error });
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    },
    (error) => {
      const failure = startFailure(error);
      // A refusal is the user's to read (stderr, one line); a bug is a log line with its stack.
      if (typeof failure === 'string') process.stderr.write(`${failure}\n`);
      else processLog.fatal('start failed', { err: failure });
      process.exit(1);
    },
  );
}

/** What to print when start fails: the one line of a refusal, the error (with its stack) otherwise. */
export function startFailure(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = (error as { message?: unknown } | null)?.message;
  if (typeof code === 'string' && STARTUP_REFUSALS.has(code) && typeof message === 'string')
    return `flex: ${message.split('\n')[0]}`;
  return error;
}
