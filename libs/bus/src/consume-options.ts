import { InvalidBusOptionsError } from './errors';
import type { ConsumeOptions, DeadLetter } from './types';

export const DEFAULT_MAX_DELIVER = 10;
export const DEFAULT_ACK_WAIT_MS = 30_000;
export const DEFAULT_CONCURRENCY = 1;
const RETRY_BASE_MS = 200;
const RETRY_CAP_MS = 30_000;
/** Durable names become JetStream consumer names: no dots, wildcards or spaces. */
const DURABLE = /^[A-Za-z0-9_-]+$/;

export interface ParsedConsumeOptions {
  durable: string;
  /** Undefined: every type. */
  types?: ReadonlySet<string>;
  maxDeliver: number;
  ackWaitMs: number;
  concurrency: number;
  onDeadLetter?: (dead: DeadLetter) => Promise<void>;
}

/** Defaults applied once, nonsense rejected before anything connects. */
export function parseConsumeOptions(options: ConsumeOptions): ParsedConsumeOptions {
  if (!DURABLE.test(options.durable ?? '')) {
    throw new InvalidBusOptionsError(`durable "${options.durable}" must be made of [A-Za-z0-9_-]`);
  }
  const parsed: ParsedConsumeOptions = {
    durable: options.durable,
    types: options.types ? new Set(options.types) : undefined,
    maxDeliver: options.maxDeliver ?? DEFAULT_MAX_DELIVER,
    ackWaitMs: options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS,
    concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
    onDeadLetter: options.onDeadLetter,
  };
  for (const key of ['maxDeliver', 'ackWaitMs', 'concurrency'] as const) {
    if (!Number.isInteger(parsed[key]) || parsed[key] < 1) {
      throw new InvalidBusOptionsError(`${key} must be a positive integer, got ${parsed[key]}`);
    }
  }
  return parsed;
}

/** Backoff before redelivering a failed delivery: 200ms, 400ms, 800ms, ... capped at 30s. */
export function retryDelayMs(deliveryCount: number): number {
  return Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** Math.min(Math.max(deliveryCount - 1, 0), 30));
}
