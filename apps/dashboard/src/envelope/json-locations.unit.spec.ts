import { jsonLocations, lineColumn, locate } from './json-locations';

describe('jsonLocations: where each value of a JSON text starts, by API path', () => {
  const text = JSON.stringify(
    { objective: 'x', policies: { runtime: [{ id: 'p', action: { type: 'goto' } }] }, 'odd key': [1, [2]] },
    null,
    2,
  );

  it('names values with the dotted paths of ValidationIssue', () => {
    const found = jsonLocations(text);
    expect(text.slice(found.get('objective'), (found.get('objective') ?? 0) + 3)).toBe('"x"');
    expect(text.slice(found.get('policies.runtime[0].action.type'))).toMatch(/^"goto"/);
    expect(text.slice(found.get('["odd key"][1][0]'))).toMatch(/^2/);
    expect(found.get('')).toBe(0);
  });

  it('points a missing key at its nearest ancestor', () => {
    expect(locate(text, 'policies.runtime[0].trigger')).toBe(jsonLocations(text).get('policies.runtime[0]'));
  });

  it('reads what it can of invalid JSON', () => {
    expect(jsonLocations('{"a": 1, "b": ').get('a')).toBe(6);
    expect(lineColumn('a\nbc', 3)).toEqual({ line: 2, column: 2 });
  });
});
