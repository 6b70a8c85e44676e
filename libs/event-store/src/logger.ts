/** Structurally a subset of `@flex/runtime`'s Logger, so a service passes its own. */
export interface StoreLogger {
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
}

export const consoleLogger: StoreLogger = {
  warn: (msg, data) => console.warn(msg, data ?? {}),
  error: (msg, data) => console.error(msg, data ?? {}),
};
