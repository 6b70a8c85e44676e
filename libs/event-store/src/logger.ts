/** Structurally a subset of `@flex/runtime`'s Logger, so a service passes its own. */
export interface StoreLogger {
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
}

/**
 * What a library logs with when its user passed no logger: one JSON line per entry on stdout, in
 * the shape of `@flex/runtime`'s lines (errors as `{ type, message, stack }` fields, never multi-line
 * text). Services always pass their own.
 */
export function fallbackLogger(component: string): StoreLogger {
  const write = (level: 'warn' | 'error', msg: string, data?: Record<string, unknown>) => {
    const line = { level, time: new Date().toISOString(), service: 'flex', component, ...data, msg };
    process.stdout.write(`${JSON.stringify(line, errorAsFields)}\n`);
  };
  return { warn: (msg, data) => write('warn', msg, data), error: (msg, data) => write('error', msg, data) };
}

function errorAsFields(_key: string, value: unknown): unknown {
  if (!(value instanceof Error)) return value;
  const code = (value as { code?: unknown }).code;
  return {
    type: value.name,
    message: value.message,
    stack: value.stack,
    ...(code === undefined ? {} : { code }),
  };
}

export const storeFallbackLogger: StoreLogger = fallbackLogger('flex/event-store');
