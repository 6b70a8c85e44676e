import { MergeConflict, mergeSchemas } from './schema-merge';

const at = '/properties/k';

describe('mergeSchemas', () => {
  it.each([
    [
      'identical schemas',
      { type: 'string', minLength: 1 },
      { minLength: 1, type: 'string' },
      { type: 'string', minLength: 1 },
    ],
    [
      'enums intersect, first order kept',
      { type: 'string', enum: ['a', 'b', 'c'] },
      { type: 'string', enum: ['c', 'b', 'z'] },
      { type: 'string', enum: ['b', 'c'] },
    ],
    [
      'one side constrains, the other does not',
      { type: 'string', enum: ['a'] },
      { type: 'string', maxLength: 3 },
      { type: 'string', enum: ['a'], maxLength: 3 },
    ],
    [
      'union types compare as sets',
      { type: ['null', 'string'] },
      { type: ['string', 'null'], minLength: 2 },
      { type: ['null', 'string'], minLength: 2 },
    ],
    [
      'annotations: the first wins',
      { type: 'string', description: 'first' },
      { type: 'string', description: 'second' },
      { type: 'string', description: 'first' },
    ],
    [
      'objects unite properties and required, merging shared ones',
      { type: 'object', required: ['b', 'a'], properties: { a: { type: 'string', enum: ['x', 'y'] } } },
      {
        type: 'object',
        required: ['a', 'c'],
        properties: { a: { type: 'string', enum: ['y'] }, c: { type: 'number' } },
      },
      {
        type: 'object',
        required: ['a', 'b', 'c'],
        properties: { a: { type: 'string', enum: ['y'] }, c: { type: 'number' } },
      },
    ],
    [
      'array items merge',
      { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
      { type: 'array', items: { type: 'string', enum: ['b'] } },
      { type: 'array', items: { type: 'string', enum: ['b'] } },
    ],
  ])('%s', (_label, a, b, merged) => {
    expect(mergeSchemas(a, b, at)).toEqual(merged);
  });

  it.each([
    ['different types', { type: 'string' }, { type: 'number' }, 'TYPE_MISMATCH', at],
    ['a type against no type', { type: 'string' }, { enum: ['a'] }, 'TYPE_MISMATCH', at],
    [
      'disjoint enums',
      { type: 'string', enum: ['a'] },
      { type: 'string', enum: ['b'] },
      'ENUM_CONFLICT',
      `${at}/enum`,
    ],
    [
      'a keyword set two ways',
      { type: 'string', pattern: '^a' },
      { type: 'string', pattern: '^b' },
      'MERGE_UNSUPPORTED',
      `${at}/pattern`,
    ],
    [
      'a conflict deep inside',
      { type: 'object', properties: { n: { type: 'integer' } } },
      { type: 'object', properties: { n: { type: 'string' } } },
      'TYPE_MISMATCH',
      `${at}/properties/n`,
    ],
    [
      'tuple items',
      { type: 'array', items: [{ type: 'string' }] },
      { type: 'array', items: [{ type: 'number' }] },
      'MERGE_UNSUPPORTED',
      `${at}/items`,
    ],
  ])('%s → %s', (_label, a, b, code, pointer) => {
    let conflict: unknown;
    try {
      mergeSchemas(a, b, at);
    } catch (error) {
      conflict = error;
    }
    expect(conflict).toBeInstanceOf(MergeConflict);
    expect(conflict).toMatchObject({ code, pointer });
  });
});
