import fc from 'fast-check';
import type { StoredEvent } from '@flex/event-store';
import { verifyReplay } from '@flex/replay';
import { flexReplayAdapters } from '../apps/flex/src/replay/replay-adapters';
import { loadCorpus } from './replay-corpus/corpus';

/**
 * What verified replay claims for every recorded run, shown over the corpus: the record re-verifies
 * whatever JSON form it travels in, and any one field a component decided, changed, is reported at
 * that event and that field.
 */
const corpus = loadCorpus();
const run = fc.constantFrom(...corpus);

/** Events wholly decided by a component from what came before them (no outside input in them). */
const DECIDED = new Set([
  'plan_generated',
  'plan_updated',
  'node_start',
  'policy_triggered',
  'hitl_request',
  'replan_deferred',
  'custom_event',
  'complete',
]);

describe('verified replay: properties over the corpus', () => {
  it('a recorded run re-verifies after a JSON round trip with its object keys in any order', () => {
    fc.assert(
      fc.property(run, fc.integer(), (recorded, seed) => {
        const shuffled = JSON.parse(JSON.stringify(shuffleKeys(recorded.events, seed))) as StoredEvent[];
        const report = verifyReplay(shuffled, flexReplayAdapters(recorded.settings));
        return report.divergence === undefined && report.verified === recorded.events.length;
      }),
      { numRuns: 40 },
    );
  });

  it('one decided field changed is reported at its event and its JSON path', () => {
    const targets = corpus.flatMap((recorded) =>
      recorded.events
        .filter((e) => DECIDED.has(e.type))
        .flatMap((event) => leaves(event.payload, '/payload').map((leaf) => ({ recorded, event, leaf }))),
    );
    fc.assert(
      fc.property(fc.nat(targets.length - 1), (i) => {
        const { recorded, event, leaf } = targets[i];
        const events = recorded.events.map((e) => (e === event ? mutated(e, leaf.path) : e));
        const { divergence, verified } = verifyReplay(events, flexReplayAdapters(recorded.settings));
        const where = `${recorded.file} v${event.version} ${leaf.path}`;
        expect({ where, verified, ...divergence }).toMatchObject({
          where,
          verified: event.version - 1,
          version: event.version,
          type: event.type,
          path: leaf.path,
          recorded: change(leaf.value),
          now: leaf.value,
        });
      }),
      { numRuns: 150 },
    );
  });
});

interface Leaf {
  path: string;
  value: unknown;
}

function leaves(value: unknown, path: string): Leaf[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, `${path}/${i}`));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) =>
      leaves(v, `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`),
    );
  return [{ path, value }];
}

function change(value: unknown): unknown {
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'boolean') return !value;
  if (typeof value === 'string') return `${value}~`;
  return 'was null';
}

function mutated(event: StoredEvent, path: string): StoredEvent {
  const copy = JSON.parse(JSON.stringify(event)) as Record<string, unknown>;
  const tokens = path
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  let at = copy as Record<string, unknown>;
  for (const token of tokens.slice(0, -1)) at = at[token] as Record<string, unknown>;
  const last = tokens[tokens.length - 1];
  at[last] = change(at[last]);
  return copy as unknown as StoredEvent;
}

/** The same JSON with every object's keys in an order drawn from `seed`. */
function shuffleKeys(value: unknown, seed: number): unknown {
  let state = seed | 0;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) | 0;
    return (state >>> 16) / 65536;
  };
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!v || typeof v !== 'object') return v;
    const entries = Object.entries(v).map(([k, x]) => [k, walk(x)] as const);
    for (let i = entries.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [entries[i], entries[j]] = [entries[j], entries[i]];
    }
    return Object.fromEntries(entries);
  };
  return walk(value);
}
