import fc from 'fast-check';
import { normalizeEnvelope } from '../normalizer/normalize-envelope';
import { isPlainObject } from '../shared/plain-object';
import {
  DEFAULT_SECRET_KEY_PATTERN,
  isSecretRef,
  MAX_SECRETS_PER_RUN,
  replaceSecretRefs,
  secretRefIds,
} from './secret-ref';

const PATTERN = new RegExp(DEFAULT_SECRET_KEY_PATTERN, 'i');
const base = { objective: 'Secrets', outputContract: { schema: { type: 'object' } } };

/** Same value with every `{"$sensitive": v}` replaced by v: what the agent that asks is owed. */
function unwrap(value: unknown): unknown {
  if (isPlainObject(value) && Object.keys(value).length === 1 && '$sensitive' in value)
    return unwrap(value.$sensitive);
  if (Array.isArray(value)) return value.map(unwrap);
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unwrap(v)]));
  return value;
}

describe('the secret choke point (normalizeEnvelope)', () => {
  it('replaces marked values and keys matching the pattern, reports paths only, keeps the values', () => {
    const result = normalizeEnvelope({
      ...base,
      inputs: {
        channel: 'linkedin',
        credentials: { githubToken: 'ghp_1', smtp: { password: 'pw' } },
        contextBundles: [{ type: 'company_profile', payload: { companyName: 'A', privateKey: 'PEM' } }],
        note: { $sensitive: ['x', { $sensitive: 'y' }] },
      },
      metadata: { sessionToken: 'tok' },
      policies: { planner: { directives: { apiKey: 'k' } }, brandVoice: 'inspiring' },
    });
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.envelope.inputs).toEqual({
      channel: 'linkedin',
      credentials: { $secret: 's1' },
      contextBundles: [
        { type: 'company_profile', payload: { companyName: 'A', privateKey: { $secret: 's2' } } },
      ],
      note: { $secret: 's3' },
    });
    expect(result.envelope.metadata).toEqual({ sessionToken: { $secret: 's4' } });
    expect(result.envelope.policies?.planner?.directives).toEqual({
      apiKey: { $secret: 's5' },
      brandVoice: 'inspiring',
    });
    expect(result.secrets).toEqual([
      { id: 's1', path: 'inputs.credentials', value: { githubToken: 'ghp_1', smtp: { password: 'pw' } } },
      { id: 's2', path: 'inputs.contextBundles[0].payload.privateKey', value: 'PEM' },
      { id: 's3', path: 'inputs.note', value: ['x', 'y'] },
      { id: 's4', path: 'metadata.sessionToken', value: 'tok' },
      { id: 's5', path: 'policies.planner.directives.apiKey', value: 'k' },
    ]);
    const reported = result.changes.filter((c) => c.note.startsWith('secret'));
    expect(reported.map((c) => c.path)).toEqual(result.secrets.map((s) => s.path));
    expect(JSON.stringify(reported)).not.toMatch(/ghp_1|PEM|"x"|tok"|"k"/);
  });

  it('uses the configured key pattern instead of the default', () => {
    const result = normalizeEnvelope(
      { ...base, inputs: { apiKey: 'shown', licence: 'L-1' } },
      { secretKeyPattern: /^licen[cs]e$/gi },
    );
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.envelope.inputs).toEqual({ apiKey: 'shown', licence: { $secret: 's1' } });
  });

  it.each([
    ['a forged reference', { inputs: { a: { $secret: 's1' } } }, 'inputs.a.$secret', 'reserved_key'],
    [
      'a marking with other keys',
      { inputs: { a: { $sensitive: 1, b: 2 } } },
      'inputs.a.$sensitive',
      'invalid_secret_marking',
    ],
    [
      'a marking outside the data',
      { specialInstructions: [{ $sensitive: 'x' }] },
      'specialInstructions[0]',
      'secret_outside_data',
    ],
    [
      'a marking in the schema',
      { outputContract: { schema: { $sensitive: 1 } } },
      'outputContract.schema',
      'secret_outside_data',
    ],
  ])('refuses %s, naming the path', (_what, extra, path, code) => {
    const result = normalizeEnvelope({ ...base, ...extra });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors).toContainEqual(expect.objectContaining({ path, code }));
  });

  it(`refuses more than ${MAX_SECRETS_PER_RUN} secrets`, () => {
    const inputs = Object.fromEntries(
      Array.from({ length: MAX_SECRETS_PER_RUN + 1 }, (_, i) => [`k${i}`, { $sensitive: i }]),
    );
    const result = normalizeEnvelope({ ...base, inputs });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.errors[0]).toMatchObject({
        path: `inputs.k${MAX_SECRETS_PER_RUN}`,
        code: 'too_many_secrets',
      });
  });

  describe('property: every planted secret, at any depth, leaves the envelope and comes back whole', () => {
    const plainKey = fc
      .string({ minLength: 1, maxLength: 6 })
      .filter((k) => !PATTERN.test(k) && !k.startsWith('$') && k !== '__proto__');
    const secretKey = fc
      .tuple(
        fc.constantFrom('', 'x', 'db_', 'Github'),
        fc.constantFrom('password', 'Token', 'API_KEY', 'apiKey', 'private-key', 'secret', 'credentials'),
        fc.constantFrom('', '2', 'Value'),
      )
      .map((parts) => parts.join(''));
    // "⟦c⟧" is numbered after generation; fc.string() (ASCII) never makes it by chance.
    const payload = fc.oneof(
      fc.constant('⟦c⟧'),
      fc.record({ v: fc.constant('⟦c⟧'), n: fc.integer() }),
      fc.array(fc.constant('⟦c⟧'), { minLength: 1, maxLength: 2 }),
    );
    const planted = fc.oneof(
      payload.map((p) => ({ $sensitive: p })),
      fc
        .tuple(secretKey, payload, fc.dictionary(plainKey, fc.string(), { maxKeys: 2 }))
        .map(([k, p, rest]) => ({
          ...rest,
          [k]: p,
        })),
    );
    const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
      tree: fc.oneof(
        { depthSize: 'small', maxDepth: 5 },
        fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
        fc.array(tie('tree'), { maxLength: 3 }),
        fc.dictionary(plainKey, tie('tree'), { maxKeys: 3 }),
        planted,
        // A planted secret deep down a chain of objects and arrays.
        fc
          .tuple(fc.array(fc.oneof(plainKey, fc.constant(0)), { maxLength: 40 }), planted)
          .map(([path, leaf]) =>
            path.reduceRight<unknown>((inner, k) => (k === 0 ? [inner] : { [k]: inner }), leaf),
          ),
      ),
    }));
    const area = fc.dictionary(plainKey, tree, { maxKeys: 4 });

    it('holds for generated envelopes', () => {
      fc.assert(
        fc.property(area, area, area, area, (inputs, metadata, constraints, directives) => {
          let n = 0;
          const raw = JSON.parse(
            JSON.stringify({ ...base, inputs, metadata, constraints, policies: { planner: { directives } } }),
            (_k, v) => (v === '⟦c⟧' ? `⟦canary-${++n}⟧` : v),
          );
          const canaries = Array.from({ length: n }, (_, i) => `⟦canary-${i + 1}⟧`);
          const result = normalizeEnvelope(raw);
          if (!result.ok) throw new Error(JSON.stringify(result.errors));
          const kept = JSON.stringify({ envelope: result.envelope, changes: result.changes });
          for (const canary of canaries) expect(kept).not.toContain(canary);
          const stored = result.secrets.map((s) => JSON.stringify(s.value));
          for (const canary of canaries) expect(stored.filter((s) => s.includes(canary))).toHaveLength(1);
          expect(result.secrets.map((s) => s.id)).toEqual(result.secrets.map((_, i) => `s${i + 1}`));
          expect(secretRefIds(result.envelope).sort()).toEqual(result.secrets.map((s) => s.id).sort());
          const reveal = new Map(result.secrets.map((s) => [s.id, s.value]));
          const restored = JSON.parse(JSON.stringify(raw));
          for (const key of ['inputs', 'metadata', 'constraints'] as const)
            expect(replaceSecretRefs(result.envelope[key], reveal)).toEqual(unwrap(restored[key]));
          expect(replaceSecretRefs(result.envelope.policies?.planner?.directives, reveal)).toEqual(
            unwrap(restored.policies.planner.directives),
          );
        }),
      );
    });
  });

  it('isSecretRef is exactly {"$secret": "s<n>"}', () => {
    expect(isSecretRef({ $secret: 's12' })).toBe(true);
    for (const v of [
      { $secret: 'x' },
      { $secret: 's1', a: 1 },
      { $secret: 1 },
      's1',
      null,
      [{ $secret: 's1' }],
    ])
      expect(isSecretRef(v)).toBe(false);
  });
});
