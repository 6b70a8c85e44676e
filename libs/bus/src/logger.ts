import { fallbackLogger, type StoreLogger } from '@flex/event-store';

/** The little the bus logs: failures it handles on the caller's behalf. */
export type BusLogger = StoreLogger;

/** When a caller passes no logger: JSON lines on stdout (services pass their own). */
export const busFallbackLogger: BusLogger = fallbackLogger('flex/bus');
