import type { LoggerService } from '@nestjs/common';
import type { LogData, Logger } from './log';

type NestLevel = 'log' | 'error' | 'warn' | 'debug' | 'verbose' | 'fatal';

/** Nest's levels in ours: `log` is Nest's start-up chatter (routes mapped, modules loaded): debug. */
const LEVELS = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'debug',
  debug: 'debug',
  verbose: 'trace',
} as const satisfies Record<NestLevel, keyof Logger>;

/**
 * Nest's own logging (its `Logger` and every `new Logger(context)` in the code) as our JSON lines:
 * pass it as `logger` to NestFactory. The last string argument is Nest's context (`component`); an
 * error, or the stack Nest hands `error()` as text, becomes `err` on the same line.
 */
export function nestLogger(logger: Logger): LoggerService {
  const at =
    (level: NestLevel) =>
    (message: unknown, ...params: unknown[]): void => {
      const target = LEVELS[level];
      logger[target](...lineOf(level, message, params));
    };
  return {
    log: at('log'),
    error: at('error'),
    warn: at('warn'),
    debug: at('debug'),
    verbose: at('verbose'),
    fatal: at('fatal'),
  };
}

function lineOf(level: NestLevel, message: unknown, params: unknown[]): [string, LogData] {
  const rest = [...params];
  const data: LogData = {};
  if (rest.length > 0 && typeof rest[rest.length - 1] === 'string') data.component = rest.pop();
  if (level === 'error' && typeof rest[0] === 'string' && rest[0].includes('\n    at ')) {
    data.err = { message: String(message), stack: rest.shift() };
  }
  if (message instanceof Error) return [message.message, { ...data, err: message }];
  if (rest.length > 0) data.details = rest;
  return [typeof message === 'string' ? message : JSON.stringify(message), data];
}
