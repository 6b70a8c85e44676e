import { createSafeAjv } from '../safe-ajv';
import { UNTRUSTED_SCHEMA_LIMITS, UntrustedSchemaError } from './schema-issue';
import { checkUntrustedSchema, compileUntrustedSchema, UNVALIDATABLE } from './untrusted-schema';

const str = { type: 'string' };
const nest = (levels: number): Record<string, unknown> => {
  let schema: Record<string, unknown> = str;
  for (let i = 0; i < levels; i += 1) schema = { type: 'object', properties: { a: schema } };
  return schema;
};
const wide = (count: number) => ({
  type: 'object',
  properties: Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, str])),
});

// §10.0.1 and §10.1 sample contracts: what callers really send must pass.
const variantsSchema = {
  type: 'object',
  required: ['copyVariants'],
  properties: {
    copyVariants: {
      type: 'array',
      minItems: 2,
      maxItems: 2,
      items: {
        type: 'object',
        required: ['headline', 'body', 'callToAction'],
        properties: { headline: str, body: str, callToAction: str },
      },
    },
  },
};

describe('checkUntrustedSchema: accepted', () => {
  it.each([
    ['the spec sample contract', variantsSchema],
    ['a boolean schema', true],
    [
      'local $ref into definitions',
      { type: 'object', properties: { a: { $ref: '#/definitions/s' } }, definitions: { s: str } },
    ],
    [
      'required inside anyOf (strictRequired is lint, off)',
      { type: 'object', properties: { a: str, b: str }, anyOf: [{ required: ['a'] }, { required: ['b'] }] },
    ],
    ['properties without type (strictTypes is lint, off)', { properties: { a: str } }],
    ['a $data key inside enum data', { enum: [{ $data: '1/x' }] }],
    [
      'a property named pattern',
      { type: 'object', properties: { pattern: { type: 'string', pattern: '^[a-z]+$' } } },
    ],
    [
      'formats from ajv-formats',
      {
        type: 'object',
        properties: {
          at: { type: 'string', format: 'date-time' },
          mail: { type: 'string', format: 'email' },
        },
      },
    ],
    ['depth just under the cap', nest(UNTRUSTED_SCHEMA_LIMITS.maxDepth / 2 - 1)],
  ])('%s', (_label, schema) => {
    expect(checkUntrustedSchema(schema)).toEqual([]);
  });
});

describe('checkUntrustedSchema: hostile schemas are refused with path and reason', () => {
  it.each([
    ['not a schema', 42, 'outputContract.schema', 'NOT_A_SCHEMA'],
    ['a function inside', { type: 'object', default: () => 1 }, 'outputContract.schema.default', 'NOT_JSON'],
    [
      'a lone surrogate',
      { type: 'object', properties: { a: { type: 'string', description: '\uD800' } } },
      'outputContract.schema.properties.a.description',
      'NOT_JSON',
    ],
    [
      'huge (bytes)',
      { type: 'string', description: 'x'.repeat(UNTRUSTED_SCHEMA_LIMITS.maxBytes) },
      'outputContract.schema',
      'SCHEMA_TOO_LARGE',
    ],
    ['deep', nest(40), `outputContract.schema${'.properties.a'.repeat(16)}`, 'SCHEMA_TOO_DEEP'],
    [
      'too many nodes',
      wide(UNTRUSTED_SCHEMA_LIMITS.maxNodes),
      'outputContract.schema',
      'SCHEMA_TOO_MANY_NODES',
    ],
    [
      '(a+)+$ pattern',
      { type: 'object', properties: { id: { type: 'string', pattern: '(a+)+$' } } },
      'outputContract.schema.properties.id.pattern',
      'UNSAFE_PATTERN',
    ],
    [
      '(a|a)* patternProperties key',
      { type: 'object', patternProperties: { '(a|a)*': str } },
      'outputContract.schema.patternProperties["(a|a)*"]',
      'UNSAFE_PATTERN',
    ],
    [
      'backreference',
      { type: 'string', pattern: '(a)\\1' },
      'outputContract.schema.pattern',
      'UNSAFE_PATTERN',
    ],
    [
      'lookbehind in propertyNames',
      { type: 'object', propertyNames: { pattern: '(?<=a)b' } },
      'outputContract.schema.propertyNames.pattern',
      'UNSAFE_PATTERN',
    ],
    [
      'invalid pattern',
      { type: 'string', pattern: '([' },
      'outputContract.schema.pattern',
      'INVALID_PATTERN',
    ],
    [
      'over-long pattern',
      { type: 'string', pattern: 'a'.repeat(600) },
      'outputContract.schema.pattern',
      'PATTERN_TOO_LONG',
    ],
    [
      'RE2-unsupported pattern',
      { type: 'string', pattern: '\\p{Letter}' },
      'outputContract.schema.pattern',
      'UNSUPPORTED_PATTERN',
    ],
    [
      '$data',
      { type: 'object', properties: { n: { type: 'number', maximum: { $data: '1/max' } } } },
      'outputContract.schema.properties.n.maximum',
      'DATA_REF',
    ],
    [
      '$data as a schema',
      { type: 'object', properties: { n: { $data: '1/max' } } },
      'outputContract.schema.properties.n.$data',
      'DATA_REF',
    ],
    [
      'remote $ref',
      { type: 'object', properties: { x: { $ref: 'https://evil.example/s.json' } } },
      'outputContract.schema.properties.x.$ref',
      'REMOTE_REF',
    ],
    ['$async', { $async: true, type: 'string' }, 'outputContract.schema.$async', 'ASYNC_SCHEMA'],
    [
      'unknown keyword (strict)',
      { type: 'object', properties: { a: { type: 'string', maxLenght: 3 } } },
      'outputContract.schema.properties.a.maxLenght',
      'UNKNOWN_KEYWORD',
    ],
    [
      'inherited-name keyword',
      { type: 'string', constructor: 1 },
      'outputContract.schema.constructor',
      'UNKNOWN_KEYWORD',
    ],
    [
      'meta-schema violation',
      { type: 'object', properties: { a: { type: 'strang' } } },
      'outputContract.schema.properties.a.type',
      'INVALID_SCHEMA',
    ],
    [
      'unknown $schema',
      { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string' },
      'outputContract.schema.$schema',
      'INVALID_SCHEMA',
    ],
    [
      'unresolvable local $ref',
      { type: 'object', properties: { a: { $ref: '#/definitions/none' } } },
      'outputContract.schema.properties.a.$ref',
      'COMPILE_FAILED',
    ],
    [
      'keyword ignored in strict mode',
      { type: 'array', additionalItems: false },
      'outputContract.schema',
      'COMPILE_FAILED',
    ],
    [
      'unknown format',
      { type: 'string', format: 'not-a-format' },
      'outputContract.schema.format',
      'COMPILE_FAILED',
    ],
    [
      'unknown format, nested',
      { type: 'object', properties: { s: { type: 'string', format: 'made-up' } } },
      'outputContract.schema.properties.s.format',
      'COMPILE_FAILED',
    ],
  ])('%s', (_label, schema, path, code) => {
    const issues = checkUntrustedSchema(schema);
    expect(issues).toContainEqual(expect.objectContaining({ path, code, message: expect.any(String) }));
    expect(() => compileUntrustedSchema(schema)).toThrow(UntrustedSchemaError);
  });

  it('reports every keyword problem at once, under the caller-given path', () => {
    const schema = {
      type: 'object',
      foo: 1,
      properties: { a: { type: 'string', pattern: '(a+)+' }, b: { $ref: 'http://x/y' } },
    };
    expect(checkUntrustedSchema(schema, 'inputs.schema').map((i) => `${i.code} ${i.path}`)).toEqual([
      'UNKNOWN_KEYWORD inputs.schema.foo',
      'UNSAFE_PATTERN inputs.schema.properties.a.pattern',
      'REMOTE_REF inputs.schema.properties.b.$ref',
    ]);
  });

  it('stops a cyclic object at the depth cap instead of overflowing the stack', () => {
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    expect(checkUntrustedSchema(cyclic)[0]).toMatchObject({ code: 'SCHEMA_TOO_DEEP' });
  });

  it('walks a 100 000-level nesting without recursion', () => {
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i += 1) deep = { not: deep };
    expect(checkUntrustedSchema(deep)[0]).toMatchObject({ code: 'SCHEMA_TOO_DEEP' });
  });

  it('carries the issues on the thrown error, with a stable code', () => {
    const error = (() => {
      try {
        compileUntrustedSchema({ type: 'string', pattern: '(a+)+$' });
      } catch (e) {
        return e as UntrustedSchemaError;
      }
    })();
    expect(error).toMatchObject({
      name: 'UntrustedSchemaError',
      code: 'UNTRUSTED_SCHEMA_REJECTED',
      retryable: false,
    });
    expect(error?.issues).toEqual([
      expect.objectContaining({ code: 'UNSAFE_PATTERN', path: 'outputContract.schema.pattern' }),
    ]);
  });
});

describe('ReDoS cannot hang the process', () => {
  it('refuses (a+)+$ in well under a second, and the safe Ajv refuses it even unchecked', () => {
    const started = performance.now();
    expect(checkUntrustedSchema({ type: 'string', pattern: '(a+)+$' })).toHaveLength(1);
    expect(() => createSafeAjv().compile({ type: 'string', pattern: '(a+)+$' })).toThrow(/UNSAFE_PATTERN/);
    expect(() => createSafeAjv().compile({ type: 'object', patternProperties: { '(a|a)*$': str } })).toThrow(
      /UNSAFE_PATTERN/,
    );
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('validates hostile data against a polynomial-backtracking pattern in linear time', () => {
    const validate = compileUntrustedSchema({ type: 'string', pattern: '^\\s*\\s*\\s*\\s*\\s*x$' });
    const started = performance.now();
    expect(validate(' '.repeat(100_000))).toEqual([
      expect.objectContaining({ keyword: 'pattern', pointer: '' }),
    ]);
    expect(validate('   x')).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('compileUntrustedSchema', () => {
  it('returns one cached validator per content hash, whatever the key order', () => {
    const a = compileUntrustedSchema({
      type: 'object',
      properties: { n: { type: 'integer', minimum: 1 } },
      required: ['n'],
    });
    const b = compileUntrustedSchema({
      required: ['n'],
      properties: { n: { minimum: 1, type: 'integer' } },
      type: 'object',
    });
    expect(b).toBe(a);
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reports validation errors with a JSON pointer and keyword, stopping at the first', () => {
    const validate = compileUntrustedSchema(variantsSchema);
    expect(
      validate({
        copyVariants: [
          { headline: 'h', body: 'b', callToAction: 'c' },
          { headline: 'h', body: 'b', callToAction: 'c' },
        ],
      }),
    ).toEqual([]);
    expect(
      validate({
        copyVariants: [
          { headline: 'h', body: 'b' },
          { headline: 'h', body: 'b', callToAction: 'c' },
        ],
      }),
    ).toEqual([expect.objectContaining({ pointer: '/copyVariants/0/callToAction', keyword: 'required' })]);
    expect(validate.validate({})).toEqual([
      expect.objectContaining({ pointer: '/copyVariants', keyword: 'required' }),
    ]);
  });

  it('keeps its own copy of the schema, so a caller mutating theirs changes nothing', () => {
    const schema = { type: 'object', properties: { mutated: { type: 'boolean' } } };
    const compiled = compileUntrustedSchema(schema);
    (schema.properties.mutated as { type: string }).type = 'string';
    expect(compiled.schema).toEqual({ type: 'object', properties: { mutated: { type: 'boolean' } } });
    expect(compiled({ mutated: 'yes' })).toHaveLength(1);
  });

  it('does not let one schema register an $id another can reach', () => {
    compileUntrustedSchema({ $id: 'https://tenant-a.example/secret.json', type: 'string' });
    expect(checkUntrustedSchema({ $id: 'https://tenant-a.example/secret.json', type: 'number' })).toEqual([]);
    expect(checkUntrustedSchema({ $ref: 'https://tenant-a.example/secret.json' })[0]).toMatchObject({
      code: 'REMOTE_REF',
    });
  });
});

describe('compileUntrustedSchema: hostile data fails closed instead of throwing', () => {
  // Ajv's deep equality calls the data's own valueOf / toString: JSON can make them non-functions.
  const hostile = (text: string): unknown => JSON.parse(text);
  it.each<[string, unknown, string]>([
    ['enum of objects, own toString', { enum: [{}] }, '{"toString": []}'],
    ['enum of objects, own valueOf', { enum: [{ a: 1 }] }, '{"valueOf": 1}'],
    ['const object, own valueOf', { const: { a: 1 } }, '{"valueOf": {}}'],
    ['nested enum', { type: 'object', properties: { o: { enum: [{}, 'x'] } } }, '{"o": {"toString": "s"}}'],
    ['uniqueItems over objects', { type: 'array', uniqueItems: true }, '[{"toString": 1}, {"toString": 1}]'],
  ])('%s', (_label, schema, data) => {
    const validate = compileUntrustedSchema(schema);
    const errors = validate(hostile(data));
    const message = expect.stringMatching(/is not a function/);
    expect(errors).toEqual([{ pointer: '', keyword: UNVALIDATABLE, message, params: expect.anything() }]);
    expect(validate.validate(hostile(data))).toEqual(errors);
  });

  it('still judges ordinary values, and hostile ones that never reach deep equality', () => {
    const validate = compileUntrustedSchema({ enum: [{}, { a: 'x' }] });
    expect(validate({})).toEqual([]);
    expect(validate({ a: 1 })).toEqual([expect.objectContaining({ keyword: 'enum' })]);
    const typed = compileUntrustedSchema({ type: 'object', properties: { toString: { type: 'array' } } });
    expect(typed(hostile('{"toString": []}'))).toEqual([]);
  });

  it('turns a stack overflow on deep data into the same single error', () => {
    const nested = { type: 'array', items: { $ref: '#/definitions/nested' } };
    const validate = compileUntrustedSchema({ $ref: '#/definitions/nested', definitions: { nested } });
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i += 1) deep = [deep];
    const errors = validate(deep);
    expect(errors).toEqual([expect.objectContaining({ pointer: '', keyword: UNVALIDATABLE })]);
    expect(errors[0].message).toMatch(/RangeError/);
  });
});
