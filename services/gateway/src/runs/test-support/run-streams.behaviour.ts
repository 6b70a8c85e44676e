import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INTERNAL_EVENT_TYPES, TERMINAL_EVENT_TYPES } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import { waitFor, type FlexClient, type Frame, type LiveStream } from '@flex/testing';

/** What the stream suite needs from one way of running Flex (embedded, or separate processes). */
export interface StreamHarness {
  /** A `client` token's view (it starts the runs) and an `operator`'s (it approves and triggers). */
  client: FlexClient;
  operator: FlexClient;
  /** The run's stored events: the record every stream must reproduce. */
  stored(runId: string): Promise<StoredEvent[]>;
  /** Something to add to a failure message (process logs). */
  logs(): string;
  close(): Promise<void>;
}

const WAIT_MS = 60_000;
/** A stream that must end at once gets this long: generous for a loaded box, far below "never". */
const PROMPT_MS = 5_000;

const REVIEW = {
  id: 'review',
  trigger: { kind: 'onStart' },
  action: { type: 'hitl', rationale: 'look first' },
};
const PAUSE = {
  id: 'brand',
  trigger: { kind: 'onNodeComplete', selector: { kind: 'structuring' } },
  action: { type: 'pause', reason: 'brand check' },
};
const NOTE = {
  id: 'note',
  trigger: { kind: 'manual' },
  action: { type: 'emit', event: 'operator_note', payload: { n: 1 } },
};
/** Replan once the copy has two variants or more (the sample envelope always has). */
export const RETHINK = {
  id: 'rethink',
  trigger: {
    kind: 'onNodeComplete',
    selector: { kind: 'execution' },
    condition: { '>=': [{ var: 'copyVariants.length' }, 2] },
  },
  action: { type: 'replan' },
};

export function envelopeWithPolicies(runtime: unknown[]): Record<string, unknown> {
  const raw = JSON.parse(readFileSync(join(__dirname, '../../../../../examples/envelope.json'), 'utf8'));
  return { ...raw, policies: { ...raw.policies, runtime } };
}

const isTerminal = (type: string) => (TERMINAL_EVENT_TYPES as readonly string[]).includes(type);
const isVisible = (e: StoredEvent) => !(INTERNAL_EVENT_TYPES as readonly string[]).includes(e.type);
/** What identifies a frame: position, type and event id, so a duplicate or a reorder shows. */
const key = (e: { position: number; type: string; id: string }) => `${e.position}:${e.type}:${e.id}`;
const keysOfFrames = (frames: readonly Frame[]) => frames.map(key);
const keysOfEvents = (events: readonly StoredEvent[]) => events.filter(isVisible).map(key);

/** Resolves with `promise`, or fails if it takes longer than `ms` (a stream held open fails here). */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not end within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** `flex_sse_streams_closed_total{reason="…"}` on the gateway's /metrics (0 before the first). */
async function streamsClosed(client: FlexClient, reason: string): Promise<number> {
  const text = await (await fetch(`${client.baseUrl}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`flex_sse_streams_closed_total{reason="${reason}"} `));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

/**
 * DESIGN §7 streams against a real Flex: every event of a run reaches every live stream once and in
 * position order, across a HITL wait, a pause (with events appended while paused), a resume and a
 * replan; every stream ends right after the terminal event; a `Last-Event-ID` at or past the
 * terminal event ends at once; `run.stream` and `run.resume` end when the run comes to rest paused.
 */
export function describeRunStreams(name: string, makeHarness: () => Promise<StreamHarness>): void {
  describe(`${name}: run event streams`, () => {
    let h: StreamHarness;
    const open: LiveStream[] = [];
    const track = <S extends LiveStream>(stream: S): S => {
      open.push(stream);
      return stream;
    };

    beforeAll(async () => {
      h = await makeHarness();
    }, 180_000);
    afterEach(() => open.splice(0).forEach((s) => s.close()));
    afterAll(() => h?.close());

    const storedEvent = (runId: string, match: (e: StoredEvent) => boolean, what: string) => {
      const found = async () => (await h.stored(runId)).find(match);
      return waitFor(found, WAIT_MS, () => `no ${what} on ${runId}\n${h.logs()}`);
    };
    const received = (streams: readonly LiveStream[], type: string) => {
      const seen = () => JSON.stringify(streams.map((s) => s.frames.map((f) => f.type)));
      const all = async () => streams.every((s) => s.frames.some((f) => f.type === type));
      return waitFor(all, WAIT_MS, () => `not every stream got ${type}: ${seen()}\n${h.logs()}`);
    };
    const resolve = async (runId: string, requestId: string, decision: 'approve' | 'reject') => {
      const res = await h.operator.json('POST', '/api/v1/flex/hitl/resolve', { runId, requestId, decision });
      expect(res.status).toBe(200);
    };

    const title = 'live streams keep up across a HITL wait, a pause, events while paused and a resume';
    it(`${title}, each event once, in order`, async () => {
      const run = track(await h.client.start(envelopeWithPolicies([REVIEW, PAUSE, NOTE])));
      expect(run.status).toBe(200);
      const request = await storedEvent(run.runId, (e) => e.type === 'hitl_request', 'hitl_request');
      // Two watchers open while the run waits for a human, before anything pauses it.
      const early = [track(await h.client.follow(run.runId)), track(await h.operator.follow(run.runId))];
      await received(early, 'hitl_request');
      await resolve(run.runId, 'hitl-1', 'approve');

      const submitted = await run.ended;
      expect(submitted.map((f) => f.type)).toContain('run_paused');
      // Opened while paused: from the start, from the middle, and past everything stored so far.
      const late = track(await h.client.follow(run.runId));
      const middle = track(await h.client.follow(run.runId, request.position));
      const beyond = track(await h.client.follow(run.runId, Number.MAX_SAFE_INTEGER));
      const watchers = [...early, late, middle];
      await received(watchers, 'run_paused');

      // An event appended between the pause and the resume reaches every live stream.
      const note = await h.operator.json('POST', `/api/v1/flex/runs/${run.runId}/policies/note/trigger`);
      expect(note.status).toBe(200);
      await received(watchers, 'custom_event');
      expect([...watchers, beyond].map((s) => s.isEnded())).toEqual([false, false, false, false, false]);

      const resumed = track(await h.client.resume(run.runId, 1));
      expect(resumed.status).toBe(200);
      const rest = await resumed.ended;
      const ends = await Promise.all([...watchers, beyond].map((s) => s.ended));
      const record = await h.stored(run.runId);
      const last = record[record.length - 1];
      expect(isTerminal(last.type)).toBe(true);
      expect(last.type).toBe('complete');

      for (const frames of ends.slice(0, 3)) expect(keysOfFrames(frames)).toEqual(keysOfEvents(record));
      const afterRequest = record.filter((e) => e.position > request.position);
      expect(keysOfFrames(ends[3])).toEqual(keysOfEvents(afterRequest));
      expect(ends[4]).toEqual([]);
      const resumedAt = record.findIndex((e) => e.type === 'run_resumed');
      expect(keysOfFrames(rest)).toEqual(keysOfEvents(record.slice(resumedAt)));
      // The submitter's stream is the record up to the pause (it ends when the run rests paused).
      expect(keysOfFrames(submitted)).toEqual(keysOfEvents(record).slice(0, submitted.length));
      expect(submitted.some((f) => f.type === 'custom_event' || f.type === 'run_resumed')).toBe(false);
    }, 180_000);

    it('a replan reaches the submitter and a watcher alike, and both end at complete', async () => {
      const run = track(await h.client.start(envelopeWithPolicies([REVIEW, RETHINK])));
      await storedEvent(run.runId, (e) => e.type === 'hitl_request', 'hitl_request');
      const watcher = track(await h.client.follow(run.runId));
      await received([watcher], 'hitl_request');
      await resolve(run.runId, 'hitl-1', 'approve');
      const [submitted, watched] = await Promise.all([run.ended, watcher.ended]);
      const record = await h.stored(run.runId);
      expect(record.map((e) => e.type)).toContain('plan_updated');
      expect(isTerminal(record[record.length - 1].type)).toBe(true);
      expect(keysOfFrames(submitted)).toEqual(keysOfEvents(record));
      expect(keysOfFrames(watched)).toEqual(keysOfEvents(record));
    }, 180_000);

    it('a watcher dropped mid-run and reconnected with Last-Event-ID gets every event once, in order', async () => {
      const run = track(await h.client.start(envelopeWithPolicies([REVIEW, PAUSE])));
      await storedEvent(run.runId, (e) => e.type === 'hitl_request', 'hitl_request');
      const legs: Frame[][] = [];
      const lastOf = () => legs.flat().at(-1)?.position ?? 0;
      /** Open a leg after what the earlier ones got, read it until `until` holds, then drop it. */
      const leg = async (until: (frames: readonly Frame[]) => boolean, what: string) => {
        const stream = track(await h.client.follow(run.runId, lastOf() || undefined));
        expect(stream.status).toBe(200);
        const seen = async () => until(stream.frames) || stream.isEnded();
        await waitFor(seen, WAIT_MS, () => `leg ${legs.length + 1} never saw ${what}\n${h.logs()}`);
        stream.close();
        legs.push(await stream.ended);
      };
      const has = (type: string) => (frames: readonly Frame[]) => frames.some((f) => f.type === type);

      // Leg 1 drops while the run waits for a human; the approval moves it on while nobody watches.
      await leg(has('hitl_request'), 'hitl_request');
      await resolve(run.runId, 'hitl-1', 'approve');
      await storedEvent(run.runId, (e) => e.type === 'run_paused', 'run_paused');
      // Leg 2 reconnects while the run is paused, and drops as soon as the resumed run moves.
      const resumed = leg(has('run_resumed'), 'run_resumed');
      track(await h.client.resume(run.runId, 1));
      await resumed;
      // Leg 3 reconnects while the run works, and follows it to the end.
      await leg((frames) => frames.some((f) => isTerminal(f.type)), 'the end');

      const record = await h.stored(run.runId);
      expect(isTerminal(record[record.length - 1].type)).toBe(true);
      const positions = legs.flat().map((f) => f.position);
      expect(positions.every((p, i) => i === 0 || p > positions[i - 1])).toBe(true);
      expect(keysOfFrames(legs.flat())).toEqual(keysOfEvents(record));
      // Legs 1 and 2 are mid-run; leg 3 has nothing left only when leg 2's last read already
      // carried the run to its end (the resumed run can finish within one read).
      const leg2Ended = legs[1].some((f) => isTerminal(f.type));
      expect(legs.map((frames) => frames.length > 0)).toEqual([true, true, !leg2Ended]);
    }, 180_000);

    it('a client that leaves is let go at once, even while the run waits for a human', async () => {
      const run = track(await h.client.start(envelopeWithPolicies([REVIEW])));
      await storedEvent(run.runId, (e) => e.type === 'hitl_request', 'hitl_request');
      const watcher = track(await h.client.follow(run.runId));
      await received([run, watcher], 'hitl_request');
      const before = await streamsClosed(h.client, 'client_left');
      run.close();
      watcher.close();
      const both = async () => (await streamsClosed(h.client, 'client_left')) >= before + 2;
      await waitFor(both, WAIT_MS, () => `the server still follows a stream nobody reads\n${h.logs()}`);
      await resolve(run.runId, 'hitl-1', 'reject');
    }, 180_000);

    it.each([
      ['complete', [] as unknown[]],
      ['run_failed', [REVIEW]],
    ])(
      'Last-Event-ID at or past %s returns at once; before it, the rest',
      async (type, rules) => {
        const run = track(await h.client.start(envelopeWithPolicies(rules)));
        if (type === 'run_failed') {
          await storedEvent(run.runId, (e) => e.type === 'hitl_request', 'hitl_request');
          await resolve(run.runId, 'hitl-1', 'reject');
        }
        const frames = await run.ended;
        const terminal = frames[frames.length - 1];
        expect(terminal.type).toBe(type);
        for (const after of [terminal.position, terminal.position + 1, Number.MAX_SAFE_INTEGER]) {
          const stream = track(await h.client.follow(run.runId, after));
          expect(stream.status).toBe(200);
          expect(await within(PROMPT_MS, `GET events after ${after}`, stream.ended)).toEqual([]);
        }
        const tail = track(await h.client.follow(run.runId, terminal.position - 1));
        const end = await within(PROMPT_MS, 'GET events of the end', tail.ended);
        expect(keysOfFrames(end)).toEqual(keysOfFrames([terminal]));
        const whole = track(await h.client.follow(run.runId));
        const replay = await within(PROMPT_MS, 'GET events of an ended run', whole.ended);
        expect(keysOfFrames(replay)).toEqual(keysOfFrames(frames));
      },
      180_000,
    );
  });
}
