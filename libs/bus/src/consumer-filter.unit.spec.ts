import { consumerFilter, supportsMultipleFilters } from './consumer-filter';

describe('supportsMultipleFilters', () => {
  it.each([
    ['2.10.0', true],
    ['2.10.0-RC.3', true],
    ['v2.11.4', true],
    ['3.0.0', true],
    ['2.9.10', false],
    ['2.9.25-beta', false],
    ['1.12.0', false],
    ['', false],
    ['latest', false],
    [undefined, false],
  ])('%s: %s', (version, expected) => expect(supportsMultipleFilters(version)).toBe(expected));
});

describe('consumerFilter', () => {
  const both = (types: string[] | undefined, multiple: boolean) =>
    consumerFilter('flex', types && new Set(types), multiple);

  it('filters one type on its subjects, on any server', () => {
    expect(both(['plan_requested'], false)).toEqual({
      filter_subject: 'flex.events.*.plan_requested',
      filter_subjects: undefined,
    });
  });

  it('filters several types (sorted) only where the server takes filter_subjects', () => {
    expect(both(['node_start', 'complete'], true)).toEqual({
      filter_subject: undefined,
      filter_subjects: ['flex.events.*.complete', 'flex.events.*.node_start'],
    });
    expect(both(['node_start', 'complete'], false)).toEqual({
      filter_subject: 'flex.events.>',
      filter_subjects: undefined,
    });
  });

  it('takes every event for a durable handling every type', () => {
    expect(both(undefined, true)).toEqual({ filter_subject: 'flex.events.>', filter_subjects: undefined });
  });

  it('encodes a type that is not a plain subject token', () => {
    expect(both(['a.b'], false).filter_subject).toBe('flex.events.*.a~2Eb');
  });
});
