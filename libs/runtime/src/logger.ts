export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, data?: Record<string, unknown>): void;
  info(msg: string, data?: Record<string, unknown>): void;
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
  child(bindings: Record<string, unknown>): Logger;
}

/** One JSON line per entry on stderr, so stdout stays free for what a command prints. */
export function createLogger(level: LogLevel, bindings: Record<string, unknown> = {}): Logger {
  const write = (at: Exclude<LogLevel, 'silent'>, msg: string, data?: Record<string, unknown>) => {
    if (RANK[at] < RANK[level]) return;
    const line = { time: new Date().toISOString(), level: at, msg, ...bindings, ...data };
    process.stderr.write(`${JSON.stringify(line, errorReplacer)}\n`);
  };
  return {
    debug: (m, d) => write('debug', m, d),
    info: (m, d) => write('info', m, d),
    warn: (m, d) => write('warn', m, d),
    error: (m, d) => write('error', m, d),
    child: (more) => createLogger(level, { ...bindings, ...more }),
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    return {
      name: value.name,
      message: value.message,
      code: (value as { code?: unknown }).code,
      stack: value.stack,
    };
  }
  return value;
}
