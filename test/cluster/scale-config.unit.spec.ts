import { formatDistribution } from './distribution';
import { scaleConfig } from './scale-config';

describe('scale-out test sizes', () => {
  it('CI size unless told, the issue topology at full size, FLEX_SCALE_RUNS overriding the runs', () => {
    expect(scaleConfig({})).toMatchObject({ size: 'ci', runs: 20 });
    expect(scaleConfig({ FLEX_SCALE: 'full' })).toMatchObject({
      size: 'full',
      runs: 200,
      topology: { gateway: 2, registry: 2, planner: 2, validator: 2, executor: 3, agents: 2 },
    });
    expect(scaleConfig({ FLEX_SCALE: 'full', FLEX_SCALE_RUNS: '7' }).runs).toBe(7);
  });

  it('refuses a size or a run count it cannot use, naming the variable', () => {
    expect(() => scaleConfig({ FLEX_SCALE: 'huge' })).toThrow('FLEX_SCALE must be full or ci, got huge');
    for (const bad of ['0', '-3', '2.5', 'many'])
      expect(() => scaleConfig({ FLEX_SCALE_RUNS: bad })).toThrow(
        `FLEX_SCALE_RUNS must be a positive integer`,
      );
  });

  it('prints one table per measure: instance, count, share', () => {
    const text = formatDistribution([
      {
        kind: 'executor',
        what: 'agent calls dispatched',
        total: 4,
        instances: [
          { instance: 'executor-1', count: 3, share: 0.75 },
          { instance: 'executor-2', count: 1, share: 0.25 },
        ],
      },
    ]);
    expect(text.split('\n')).toEqual([
      'executor: agent calls dispatched (total 4)',
      '  executor-1         3   75.0%',
      '  executor-2         1   25.0%',
    ]);
  });
});
