import type { JsonSchema } from '../verdict';
import { hasValues } from './domain';
import { admits } from './domain-values';
import { lookup } from './var-lookup';
import { domainOf } from './index';

const at = (schemas: JsonSchema[], path: string) => lookup(domainOf(schemas), path);

describe('domainOf', () => {
  it('reads numeric bounds, exclusive bounds and integer-ness, intersecting the schemas', () => {
    const d = domainOf([
      { type: 'number', minimum: 0, maximum: 10 },
      { type: 'integer', exclusiveMaximum: 5 },
    ]);
    expect(d.number?.range).toMatchObject({ min: 0, max: 4, integer: true });
    expect(d.string).toBeUndefined();
    const open = domainOf([{ type: 'number', exclusiveMinimum: 0, maximum: 1 }]);
    expect(open.number?.range).toMatchObject({ min: 0, minOpen: true, max: 1, maxOpen: false });
  });

  it('counts string lengths in UTF-16 units: maxLength n allows .length up to 2n', () => {
    expect(domainOf([{ type: 'string', minLength: 1, maxLength: 3 }]).string).toEqual({
      minLength: 1,
      maxLength: 6,
    });
  });

  it('filters enum and const by the other keywords', () => {
    const d = domainOf([{ enum: [1, 2, 'x', null] }, { type: 'integer', maximum: 1 }]);
    expect(d.finite).toEqual([1]);
    expect(domainOf([{ const: 'a' }, { enum: ['a', 'b'] }]).finite).toEqual(['a']);
    expect(hasValues(domainOf([{ const: 'a' }, { const: 'b' }]))).toBe(false);
  });

  it('reads arrays: length bounds and the item domain', () => {
    const d = domainOf([
      { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string', maxLength: 2 } },
    ]);
    expect(d.array).toMatchObject({ minItems: 1, maxItems: 3 });
    expect(d.array?.items.string).toEqual({ minLength: 0, maxLength: 4 });
    expect(domainOf([{ type: 'array', items: false }]).array?.maxItems).toBe(0);
  });

  it('reads objects: required, optional and forbidden properties', () => {
    const schema: JsonSchema = {
      type: 'object',
      required: ['a'],
      additionalProperties: false,
      properties: { a: { type: 'string' }, b: { type: 'number' } },
    };
    expect(at([schema], 'a')).toMatchObject({ defaulted: false });
    expect(at([schema], 'b')).toMatchObject({ defaulted: true });
    expect(at([schema], 'c').value.finite).toEqual([]);
    expect(admits(domainOf([schema]), { a: 'x', c: 1 })).toBe(false);
    expect(admits(domainOf([schema]), { a: 'x', b: 2 })).toBe(true);
  });

  it('intersects property schemas across the conjunction, additionalProperties included', () => {
    const facet: JsonSchema = {
      type: 'object',
      properties: { score: { type: 'number', minimum: 0, maximum: 1 } },
    };
    const caller: JsonSchema = {
      type: 'object',
      required: ['score'],
      additionalProperties: { type: 'number', minimum: 0.5 },
    };
    const score = at([facet, caller], 'score');
    expect(score.defaulted).toBe(false);
    expect(score.value.number?.range).toMatchObject({ min: 0.5, max: 1 });
  });

  it('is empty for false, a required forbidden property or contradicting bounds', () => {
    expect(hasValues(domainOf([false]))).toBe(false);
    expect(
      domainOf([{ type: 'object', required: ['a'], additionalProperties: false }]).object,
    ).toBeUndefined();
    expect(domainOf([{ type: 'integer', minimum: 2, maximum: 1 }]).number).toBeUndefined();
  });

  it('stays wider (never narrower) for keywords it does not read', () => {
    const d = domainOf([{ anyOf: [{ type: 'string' }, { type: 'null' }], pattern: '^a', format: 'email' }]);
    for (const value of [1, 'b', null, [], {}]) expect(admits(d, value)).toBe(true);
    // patternProperties may claim a key that additionalProperties would forbid.
    const patterned = {
      type: 'object',
      patternProperties: { '^x': { type: 'number' } },
      additionalProperties: false,
    };
    const open = domainOf([patterned]);
    expect(admits(open, { xy: 1 })).toBe(true);
  });
});
