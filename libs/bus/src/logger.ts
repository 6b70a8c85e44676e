/** The little the bus logs: failures it handles on the caller's behalf. */
export interface BusLogger {
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

export const consoleBusLogger: BusLogger = {
  warn: (message, data) => console.warn(`[flex/bus] ${message}`, data ?? ''),
  error: (message, data) => console.error(`[flex/bus] ${message}`, data ?? ''),
};
