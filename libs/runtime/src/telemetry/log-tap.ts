import type { DestinationStream } from 'pino';
import type { LogLevel } from './log';

/** A log line about a run, as written (see createLogger), for the run's SSE stream. */
export interface RunLogLine {
  level: Exclude<LogLevel, 'silent'>;
  time: string;
  service: string;
  msg: string;
  runId: string;
  [field: string]: unknown;
}

const RANK: Record<LogLevel, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: 100,
};

/**
 * The destination of a process's log lines: every line goes to `out` (stdout); a line about a run
 * (it has a `runId`) at `minLevel` or above is also handed, parsed, to the attached target, which
 * publishes it for the run's SSE readers (live only: nothing stores it), without error stacks. Only
 * lines written reach a target, so FLEX_LOG_LEVEL bounds what streams carry too.
 */
export class RunLogTap implements DestinationStream {
  private target: ((line: RunLogLine) => void) | undefined;

  constructor(
    private readonly out: DestinationStream,
    private readonly minLevel: LogLevel,
  ) {}

  /** Hand run lines to `target` from now on; returns the detach. */
  attach(target: (line: RunLogLine) => void): () => void {
    this.target = target;
    return () => {
      if (this.target === target) this.target = undefined;
    };
  }

  write(text: string): void {
    this.out.write(text);
    const target = this.target;
    if (!target || !text.includes('"runId":')) return;
    const line = runLogLine(text);
    if (line && RANK[line.level] >= RANK[this.minLevel]) target(line);
  }
}

/** The line, parsed, if it is about a run; an error's stack stays in the process's log (not the client's). */
function runLogLine(text: string): RunLogLine | undefined {
  let line: Partial<RunLogLine>;
  try {
    line = JSON.parse(text) as Partial<RunLogLine>;
  } catch {
    return undefined;
  }
  if (typeof line.runId !== 'string' || typeof line.level !== 'string' || !(line.level in RANK))
    return undefined;
  for (const key of ['err', 'error']) {
    const error = line[key];
    if (error && typeof error === 'object' && 'stack' in error) delete (error as { stack?: unknown }).stack;
  }
  return line as RunLogLine;
}
