import { applyPatch, parsePointer } from './json-patch';

describe('applyPatch (RFC 6902)', () => {
  const doc = { objective: 'x', inputs: { tags: ['a', 'b'] } };

  it('adds, replaces, removes, moves, copies and tests, without touching the original', () => {
    const result = applyPatch(doc, [
      { op: 'add', path: '/inputs/tags/-', value: 'c' },
      { op: 'add', path: '/inputs/tags/0', value: 'z' },
      { op: 'replace', path: '/objective', value: 'y' },
      { op: 'remove', path: '/inputs/tags/1' },
      { op: 'copy', from: '/objective', path: '/inputs/copy' },
      { op: 'move', from: '/inputs/copy', path: '/moved' },
      { op: 'test', path: '/moved', value: 'y' },
    ]);
    expect(result).toEqual({
      ok: true,
      value: { objective: 'y', inputs: { tags: ['z', 'b', 'c'] }, moved: 'y' },
    });
    expect(doc).toEqual({ objective: 'x', inputs: { tags: ['a', 'b'] } });
  });

  it('replaces the whole document at the empty pointer', () => {
    expect(applyPatch(doc, [{ op: 'replace', path: '', value: { objective: 'new' } }])).toEqual({
      ok: true,
      value: { objective: 'new' },
    });
  });

  it('is all or nothing: the first operation that cannot apply is named', () => {
    const result = applyPatch(doc, [
      { op: 'replace', path: '/objective', value: 'y' },
      { op: 'remove', path: '/nope' },
    ]);
    expect(result).toEqual({
      ok: false,
      index: 1,
      message: expect.stringMatching(/operation 1 .*does not exist/),
    });
  });

  it.each([
    [{ op: 'add', path: '/__proto__/polluted', value: true }, /may not be written/],
    [{ op: 'add', path: '/inputs/tags/7', value: 1 }, /out of range/],
    [{ op: 'add', path: 'objective', value: 1 }, /not a JSON Pointer/],
    [{ op: 'replace', path: '/missing', value: 1 }, /does not exist/],
    [{ op: 'add', path: '/objective' }, /missing value/],
    [{ op: 'test', path: '/objective', value: 'other' }, /test failed/],
    [{ op: 'move', from: '/inputs', path: '/inputs/inner' }, /into itself/],
    [{ op: 'jump', path: '/x' }, /unknown op/],
  ])('refuses %j', (op, message) => {
    const result = applyPatch(doc, [op as never]);
    expect(result).toMatchObject({ ok: false, index: 0, message: expect.stringMatching(message) });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads ~0 and ~1 in pointers', () => {
    expect(parsePointer('/a~1b/c~0d')).toEqual(['a/b', 'c~d']);
  });
});
