import type { AgentLogger } from './logger';

/** One line an agent logged while handling an invocation, returned with its answer. */
export interface AgentLogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  data?: Record<string, unknown>;
}

/** What one invocation returns of its log: the first lines, each cut to size. */
export const RUN_LOG_LIMITS = { lines: 20, messageLength: 1_000, dataBytes: 2_000 } as const;

/**
 * The handler's logger during one invocation: every line goes to the agent's own logger, and the
 * lines at `info` and above are also kept (the first {@link RUN_LOG_LIMITS}.lines, each cut to
 * size) to return with the answer, where the executor records them on the run as `log` events.
 * `debug` stays local. Data that is no plain JSON of a few kB is left out of the kept line.
 */
export class RunLogCollector {
  private readonly kept: AgentLogLine[] = [];
  private dropped = 0;

  constructor(private readonly inner: AgentLogger) {}

  readonly logger: AgentLogger = {
    debug: (msg, data) => this.inner.debug(msg, data),
    info: (msg, data) => this.keep('info', msg, data),
    warn: (msg, data) => this.keep('warn', msg, data),
    error: (msg, data) => this.keep('error', msg, data),
  };

  /** The kept lines, and one saying how many more there were. */
  lines(): AgentLogLine[] {
    if (this.dropped === 0) return [...this.kept];
    return [...this.kept, { level: 'warn', message: `${this.dropped} more log lines not kept` }];
  }

  private keep(level: AgentLogLine['level'], msg: string, data?: Record<string, unknown>): void {
    this.inner[level](msg, data);
    if (this.kept.length >= RUN_LOG_LIMITS.lines) {
      this.dropped += 1;
      return;
    }
    const message = String(msg).slice(0, RUN_LOG_LIMITS.messageLength) || '(empty)';
    const kept = smallJson(data);
    this.kept.push(kept === undefined ? { level, message } : { level, message, data: kept });
  }
}

function smallJson(data: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (data === undefined) return undefined;
  try {
    const text = JSON.stringify(data);
    if (text === undefined || Buffer.byteLength(text) > RUN_LOG_LIMITS.dataBytes) return undefined;
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
