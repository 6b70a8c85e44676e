import { NOTHING_SEEN, observe, stops, type StreamEnd, type StreamProgress } from './stream-end';

const seen = (...types: string[]): StreamProgress => types.reduce(observe, NOTHING_SEEN);

describe('when a run stream stops', () => {
  it.each<[string, string[], StreamEnd, boolean, boolean]>([
    ['every stream stops right after the terminal event', ['start', 'complete'], 'terminal', false, true],
    ['run_failed is terminal too', ['start', 'run_failed'], 'terminal_or_rest', false, true],
    ['a watcher follows a paused run', ['start', 'run_paused'], 'terminal', true, false],
    [
      'a command stream stops once the paused run rests',
      ['start', 'run_paused'],
      'terminal_or_rest',
      true,
      true,
    ],
    [
      '…but not while stored events are left to send',
      ['start', 'run_paused'],
      'terminal_or_rest',
      false,
      false,
    ],
    ['a resume undoes the pause', ['run_paused', 'run_resumed'], 'terminal_or_rest', true, false],
    [
      'events in flight after a pause keep it paused',
      ['run_paused', 'node_complete'],
      'terminal_or_rest',
      true,
      true,
    ],
    ['a HITL wait holds every stream open', ['start', 'hitl_request'], 'terminal_or_rest', true, false],
    ['nothing seen yet: keep going', [], 'terminal', true, false],
    [
      'a stored-only stream stops once caught up, wherever the run is',
      ['start', 'node_start'],
      'stored',
      true,
      true,
    ],
    ['…and not before', ['start', 'node_start'], 'stored', false, false],
    ['…nor on a run that has nothing stored yet', [], 'stored', false, false],
  ])('%s', (_, types, end, caughtUp, expected) => {
    expect(stops(seen(...types), end, caughtUp)).toBe(expected);
  });
});
