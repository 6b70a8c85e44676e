import { brief, expectValidPayloads, given, started } from '../test-support/run.fixtures';
import { agentLogsOf } from './agent-reply';
import { decideInvocation, DEFAULT_RETRY, type InvokeOutcome } from './invoke.decide';
import { secretFreeOutcome } from './secret-free-outcome';
import { storableOutcome } from './storable-outcome';

const lines = [
  { level: 'info' as const, message: 'drafted the brief', data: { words: 120 } },
  { level: 'warn' as const, message: 'model unavailable; used the template' },
];
const types = (events: ReadonlyArray<{ type: string }>) => events.map((e) => e.type);

describe('executor: what an agent logged during an attempt is recorded on the run as `log` events', () => {
  it('given an answer with log lines, then `log` events (source agent, the node and attempt) come before node_complete', () => {
    const state = given([], started('structuring-1', 1, 'StrategyManagerAgent.briefing'));
    const ok: InvokeOutcome = { ok: true, output: brief, durationMs: 5, logs: lines };
    const events = decideInvocation(state, 'structuring-1', 1, ok, DEFAULT_RETRY);
    expect(types(events)).toEqual(['log', 'log', 'node_complete']);
    expect(events[0].payload).toEqual({
      level: 'info',
      message: 'drafted the brief',
      data: { words: 120 },
      source: 'agent',
      nodeId: 'structuring-1',
      attempt: 1,
      capabilityId: 'StrategyManagerAgent.briefing',
    });
    expectValidPayloads(events);
  });

  it('given a failed attempt with log lines, then they come before its node_error; a stale attempt records nothing', () => {
    const state = given([], started('structuring-1'));
    const failed: InvokeOutcome = {
      ok: false,
      durationMs: 5,
      error: { code: 'agent_failed', message: 'boom', retryable: true },
      logs: lines.slice(1),
    };
    expect(types(decideInvocation(state, 'structuring-1', 1, failed, DEFAULT_RETRY))).toEqual([
      'log',
      'node_error',
    ]);
    expect(decideInvocation(state, 'structuring-1', 2, failed, DEFAULT_RETRY)).toEqual([]);
  });

  it('keeps only well-formed lines, cut to size, and small JSON objects as data', () => {
    expect(agentLogsOf(undefined)).toBeUndefined();
    expect(agentLogsOf('text')).toBeUndefined();
    expect(agentLogsOf([{ level: 'debug', message: 'x' }, { level: 'info' }, null])).toBeUndefined();
    const kept = agentLogsOf([
      { level: 'error', message: 'm'.repeat(5_000), data: { big: 'x'.repeat(10_000) } },
      { level: 'info', message: 'ok', data: [1, 2] },
      ...Array.from({ length: 40 }, (_, i) => ({ level: 'info', message: `line ${i}` })),
    ]);
    expect(kept).toHaveLength(25);
    expect(kept?.[0]).toEqual({ level: 'error', message: 'm'.repeat(2_000) });
    expect(kept?.[1]).toEqual({ level: 'info', message: 'ok' });
  });

  it('never records a secret of the run: its text is replaced in messages and data, keys included', () => {
    const secret = 'sk-live-0123456789';
    const leaky: InvokeOutcome = {
      ok: true,
      output: brief,
      durationMs: 5,
      logs: [
        { level: 'info', message: `calling the API with ${secret}`, data: { [secret]: `Bearer ${secret}` } },
        { level: 'warn', message: 'quote " and \\ survive', data: { note: 'fine' } },
      ],
    };
    const clean = secretFreeOutcome(leaky, [{ apiKey: secret }]);
    expect(JSON.stringify(clean)).not.toContain(secret);
    expect(clean.logs).toEqual([
      { level: 'info', message: 'calling the API with [secret]', data: { '[secret]': 'Bearer [secret]' } },
      leaky.logs?.[1],
    ]);
    const refused = secretFreeOutcome({ ...leaky, output: { writerBrief: secret } }, [secret]);
    expect(refused.ok).toBe(false);
    expect(JSON.stringify(refused)).not.toContain(secret);
  });

  it('records only what Postgres can store: U+FFFD in a message, data holding a NUL left out', () => {
    const outcome = storableOutcome({
      ok: true,
      output: brief,
      durationMs: 5,
      logs: [{ level: 'info', message: 'nul \u0000 here', data: { bad: 'a\u0000b' } }],
    });
    expect(outcome.logs).toEqual([{ level: 'info', message: 'nul \uFFFD here' }]);
  });
});
