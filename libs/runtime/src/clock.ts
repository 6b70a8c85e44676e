import { randomUUID } from 'node:crypto';

/** Time and ids enter domain code through these, never through Date.now() inside a decider. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface IdGenerator {
  uuid(): string;
}

export const randomIds: IdGenerator = { uuid: () => randomUUID() };
