import { brief, expectValidPayloads, given, started } from '../test-support/run.fixtures';
import { decideInvocation, DEFAULT_RETRY } from './invoke.decide';
import { storableOutcome } from './storable-outcome';

const CUT_EMOJI = '\u{1F600}'.slice(0, 1);

describe('storableOutcome: what an agent answered, safe to record', () => {
  it.each([
    ['a NUL', { writerBrief: { ...brief.writerBrief, angle: 'a\u0000b' } }, '/writerBrief/angle', /U\+0000/],
    [
      'a cut emoji',
      { writerBrief: { ...brief.writerBrief, keyPoints: ['ok', `cut ${CUT_EMOJI}`] } },
      '/writerBrief/keyPoints/1',
      /surrogate/,
    ],
  ])(
    'an output holding %s is an invalid output naming the path; the retry follows',
    (_what, output, path, reason) => {
      const outcome = storableOutcome({ ok: true, output, durationMs: 3 });
      expect(outcome).toEqual({
        ok: false,
        durationMs: 3,
        error: { code: 'invalid_output', message: expect.stringContaining(path), retryable: true },
        outputErrors: [{ path, keyword: 'storable', message: expect.stringMatching(reason) }],
      });
      const events = decideInvocation(
        given([], started('structuring-1')),
        'structuring-1',
        1,
        outcome,
        DEFAULT_RETRY,
      );
      expect(events.map((e) => e.type)).toEqual(['validation_error', 'node_error']);
      expect(events[0].payload).toMatchObject({
        scope: 'capability_output',
        nodeId: 'structuring-1',
        attempt: 1,
        errors: [{ path }],
      });
      expect(events[1].payload).toMatchObject({ error: { code: 'invalid_output' }, willRetry: true });
      expectValidPayloads(events);
      expect(JSON.stringify(events)).not.toMatch(/\\u0000|\\ud83d/);
    },
  );

  it('a storable output passes unchanged; an unstorable usage.model is dropped', () => {
    const ok = { ok: true as const, output: { text: 'fine \u{1F600}' }, durationMs: 1, usage: { tokens: 3 } };
    expect(storableOutcome(ok)).toBe(ok);
    expect(storableOutcome({ ...ok, usage: { tokens: 3, model: 'm\u0000' } })).toEqual({
      ...ok,
      usage: { tokens: 3 },
    });
  });

  it("an agent's error text is recorded with U+FFFD where it cannot be stored", () => {
    const failed = storableOutcome({
      ok: false,
      durationMs: 1,
      error: { code: 'agent_error', message: `boom\u0000 ${CUT_EMOJI}`, retryable: true },
      outputErrors: [{ path: `/k${CUT_EMOJI}`, keyword: 'type', message: 'm\u0000', facet: 'f' }],
    });
    expect(failed).toEqual({
      ok: false,
      durationMs: 1,
      error: { code: 'agent_error', message: 'boom\uFFFD \uFFFD', retryable: true },
      outputErrors: [{ path: '/k\uFFFD', keyword: 'type', message: 'm\uFFFD', facet: 'f' }],
    });
  });
});
