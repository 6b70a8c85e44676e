import type { BusLogger } from '../logger';

/** Keeps what the bus logs, for assertions, instead of printing it. FLEX_TEST_LOG=1 prints too. */
export class RecordingLogger implements BusLogger {
  readonly entries: Array<{ level: 'warn' | 'error'; message: string; data?: Record<string, unknown> }> = [];

  warn(message: string, data?: Record<string, unknown>): void {
    this.record('warn', message, data);
  }

  error(message: string, data?: Record<string, unknown>): void {
    this.record('error', message, data);
  }

  private record(level: 'warn' | 'error', message: string, data?: Record<string, unknown>): void {
    this.entries.push({ level, message, data });
    if (process.env.FLEX_TEST_LOG) console.log(level, message, data);
  }
}
