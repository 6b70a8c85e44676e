import fc from 'fast-check';
import { chainHash, GENESIS_HASH, type ChainedEvent } from './chain';

export const STREAM = 'run-chain';
export const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
/** JSON values as they come back from JSON (fc.jsonValue can draw -0). */
export const json = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
export const timestamp = fc
  .integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) })
  .map((ms) => new Date(ms).toISOString());

/** An event's own fields, before the chain places it. */
export const fields = fc.record({
  id: fc.uuid(),
  type: fc.constantFrom('start', 'plan_requested', 'node_complete', 'complete'),
  payload: json,
  metadata: fc.record({ correlationId: fc.string(), actor: fc.option(fc.string(), { nil: undefined }) }),
  timestamp,
});
type Fields = typeof fields extends fc.Arbitrary<infer F> ? F : never;

/** A chain as the store writes it: versions 1…n, rising positions, each linked to the one before. */
export function chainOf(all: readonly Fields[], firstPosition = 1): ChainedEvent[] {
  const events: ChainedEvent[] = [];
  for (const [i, f] of all.entries()) {
    const metadata = JSON.parse(JSON.stringify(f.metadata)) as unknown;
    const prev = events[i - 1]?.hash ?? GENESIS_HASH;
    const event = { ...f, metadata, streamId: STREAM, version: i + 1, position: firstPosition + i * 3, prev };
    events.push({ ...event, hash: chainHash(event) });
  }
  return events;
}
