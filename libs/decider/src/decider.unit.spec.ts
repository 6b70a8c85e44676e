import { andThen, decision, effectsOf, NO_DECISION } from './decider';

type Effect = { type: 'invoke'; id: string } | { type: 'wake'; inMs: number };
const started = { type: 'run_resumed' as const, payload: { expectedPlanVersion: 1, resumedBy: 'op' } };

describe('decider: decisions are data', () => {
  it('andThen keeps the events and the effects of both, in order', () => {
    const first = decision<Effect>([started], [{ type: 'wake', inMs: 5 }]);
    const second = decision<Effect>([], [{ type: 'invoke', id: 'a' }]);
    expect(andThen(first, second)).toEqual({
      events: [started],
      effects: [
        { type: 'wake', inMs: 5 },
        { type: 'invoke', id: 'a' },
      ],
    });
    expect(andThen(NO_DECISION, first)).toEqual(first);
  });

  it('effectsOf picks the effects of one type', () => {
    const d = decision<Effect>(
      [],
      [
        { type: 'invoke', id: 'a' },
        { type: 'wake', inMs: 1 },
        { type: 'invoke', id: 'b' },
      ],
    );
    expect(effectsOf(d, 'invoke').map((e) => e.id)).toEqual(['a', 'b']);
  });
});
