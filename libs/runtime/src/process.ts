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

/** What a started process hands `runProcess`: how to stop it, and how long stopping may take. */
export interface RunningProcess {
  /** Stop taking work, finish the work in hand, close the connections. */
  stop(): Promise<void>;
  /** How long `stop` may take before the process exits anyway (FLEX_SHUTDOWN_GRACE_MS). */
  graceMs: number;
}

/**
 * A process entry point: run `start`; on the first SIGTERM / SIGINT run its `stop` once and exit 0
 * when it is done. A second signal, or `stop` taking longer than `graceMs`, exits 1 at once: work
 * not finished by then is left unacknowledged, for another instance to take. A failure to start
 * (or to stop) is printed and exits 1.
 */
export function runProcess(start: () => Promise<RunningProcess>): void {
  start().then(
    (running) => {
      let stopping = false;
      const stop = (signal: NodeJS.Signals) => {
        if (stopping) return forceExit(`${signal} again while stopping`);
        stopping = true;
        setTimeout(
          () => forceExit(`still stopping after ${running.graceMs} ms (FLEX_SHUTDOWN_GRACE_MS)`),
          running.graceMs,
        ).unref();
        running.stop().then(
          () => process.exit(0),
          (error) => {
            processLog.error('shutdown failed', { err: error });
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
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

function forceExit(why: string): void {
  processLog.error('exiting without finishing the work in hand', { reason: why });
  process.exit(1);
}

/** What to print when start fails: the one line of a refusal, the error (with its stack) otherwise. */
export function startFailure(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = (error as { message?: unknown } | null)?.message;
  if (typeof code === 'string' && STARTUP_REFUSALS.has(code) && typeof message === 'string')
    return `flex: ${message.split('\n')[0]}`;
  return error;
}
