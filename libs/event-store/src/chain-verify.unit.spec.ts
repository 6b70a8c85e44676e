import { canonicalJson } from '@flex/contracts';
import fc from 'fast-check';
import { chainHash, chainHead, GENESIS_HASH, type ChainedEvent } from './chain';
import { chainOf, fields, hex64, json, STREAM, timestamp } from './chain.spec-helper';
import { verifyChain, type ChainProblem } from './chain-verify';

const chain = fc.array(fields, { minLength: 1, maxLength: 8 }).map((all) => chainOf(all));

/** One field of an event changed to a value that differs under canonical JSON. */
const edit = fc.oneof(
  json.map((payload) => (e: ChainedEvent) => ({ ...e, payload })),
  json.map((metadata) => (e: ChainedEvent) => ({ ...e, metadata })),
  fc.string().map((type) => (e: ChainedEvent) => ({ ...e, type })),
  fc.uuid().map((id) => (e: ChainedEvent) => ({ ...e, id })),
  timestamp.map((at) => (e: ChainedEvent) => ({ ...e, timestamp: at })),
  fc.nat(20).map((v) => (e: ChainedEvent) => ({ ...e, version: v })),
  fc.nat().map((p) => (e: ChainedEvent) => ({ ...e, position: p })),
  fc.string().map((s) => (e: ChainedEvent) => ({ ...e, streamId: s })),
  hex64.map((prev) => (e: ChainedEvent) => ({ ...e, prev })),
  hex64.map((hash) => (e: ChainedEvent) => ({ ...e, hash })),
);

const differs = (a: ChainedEvent, b: ChainedEvent) => canonicalJson(a) !== canonicalJson(b);

function expectFault(
  events: ChainedEvent[],
  head: ReturnType<typeof chainHead>,
  index: number,
  problem: ChainProblem,
) {
  const verdict = verifyChain(events, head);
  expect(verdict.ok).toBe(false);
  expect(verdict.firstBad).toMatchObject({ index, problem });
}

describe('verifyChain', () => {
  it('accepts every chain the store would write, with and without its head', () => {
    fc.assert(
      fc.property(chain, (events) => {
        const head = chainHead(STREAM, events);
        expect(verifyChain(events, head)).toEqual({ ok: true, events: events.length, head });
        expect(verifyChain(events).ok).toBe(true);
      }),
    );
  });

  it('names the edited event as the first bad one, whatever field changed', () => {
    fc.assert(
      fc.property(chain, fc.nat(), edit, (events, at, change) => {
        const k = at % events.length;
        const tampered = events.map((e, i) => (i === k ? change(e) : e));
        fc.pre(differs(tampered[k], events[k]));
        expectFault(tampered, chainHead(STREAM, events), k, 'edited');
      }),
    );
  });

  it('names the event after a deleted one (or the head, when the last is deleted)', () => {
    fc.assert(
      fc.property(chain, fc.nat(), (events, at) => {
        const k = at % events.length;
        const tampered = events.filter((_, i) => i !== k);
        expectFault(tampered, chainHead(STREAM, events), k, 'deleted');
      }),
    );
  });

  it('names an inserted event, forged or chained properly onto its predecessor', () => {
    fc.assert(
      fc.property(chain, fc.nat(), fields, fc.boolean(), hex64, (events, at, extra, chained, junk) => {
        const k = at % (events.length + 1);
        const prev = k === 0 ? GENESIS_HASH : events[k - 1].hash!;
        const placed = { ...extra, streamId: STREAM, version: k + 1, position: 1 + k * 3, prev };
        const forged = chained
          ? { ...placed, hash: chainHash(placed) }
          : { ...placed, prev: junk, hash: junk };
        const tampered = [...events.slice(0, k), forged, ...events.slice(k)];
        expectFault(tampered, chainHead(STREAM, events), k, 'inserted');
      }),
    );
  });

  it('names the first of two swapped events as reordered', () => {
    fc.assert(
      fc.property(
        chain.filter((events) => events.length >= 2),
        fc.nat(),
        fc.nat(),
        (events, a, b) => {
          const k = a % (events.length - 1);
          const m = k + 1 + (b % (events.length - 1 - k));
          const tampered = [...events];
          [tampered[k], tampered[m]] = [tampered[m], tampered[k]];
          expectFault(tampered, chainHead(STREAM, events), k, 'reordered');
        },
      ),
    );
  });

  it('without a head, finds no fault in a chain cut short, and sees a rewritten chain only with one', () => {
    const events = chainOf(fc.sample(fields, { numRuns: 4, seed: 17 }));
    expect(verifyChain(events.slice(0, 3)).ok).toBe(true);
    const rewritten = chainOf([...fc.sample(fields, { numRuns: 3, seed: 17 }), fc.sample(fields, 1)[0]]);
    expect(verifyChain(rewritten).ok).toBe(true);
    expect(verifyChain(rewritten, chainHead(STREAM, events)).firstBad).toMatchObject({
      index: 3,
      problem: 'edited',
    });
  });

  it('calls a row without links inserted, and reports the missing tail event by version', () => {
    const events = chainOf(fc.sample(fields, { numRuns: 3, seed: 3 }));
    const unlinked = { ...events[2], prev: null, hash: null };
    expect(verifyChain([...events.slice(0, 2), unlinked]).firstBad).toMatchObject({
      index: 2,
      problem: 'inserted',
      eventId: events[2].id,
    });
    expect(verifyChain(events.slice(0, 2), chainHead(STREAM, events)).firstBad).toEqual({
      index: 2,
      position: null,
      version: 3,
      eventId: null,
      problem: 'deleted',
      detail: 'the chain ends at version 2; its head says 3',
    });
  });
});
