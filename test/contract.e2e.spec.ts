import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from '@flex/testing';
import { useEmbeddedFlex } from './integration/embedded-flex';

const TOKEN = 'contract-client';
const types = (frames: Frame[]) => frames.map((f) => f.type);
const payloadOf = (frames: Frame[], type: string): any => frames.find((f) => f.type === type)?.payload;
const item = {
  type: 'object',
  required: ['headline', 'body', 'callToAction'],
  properties: { headline: { type: 'string' }, body: { type: 'string' }, callToAction: { type: 'string' } },
};

/** The sample envelope with the objective text naming no count and no count in the inputs: only the contract says. */
function envelope(schema: Record<string, unknown>, constraints: unknown[] = []): any {
  const raw = JSON.parse(readFileSync(join(__dirname, '../examples/envelope.json'), 'utf8'));
  raw.objective = 'Write LinkedIn posts promoting AwesomePoster to engineers';
  delete raw.inputs.variantCount;
  delete raw.specialInstructions;
  raw.outputContract = { schema, constraints };
  return raw;
}
const variants = (
  copyVariants: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  required = ['copyVariants'],
) => ({ type: 'object', required, properties: { copyVariants, ...extra } });

/**
 * Issue 10 as a user meets it, over HTTP against the whole embedded system with the reference
 * agents: what the validator accepts completes, what it refutes fails before any agent runs.
 */
describe('an accepted plan delivers its contract (embedded, over HTTP)', () => {
  const embedded = useEmbeddedFlex(TOKEN);

  const run = async (body: unknown) => {
    const result = await embedded.client().runStream(body);
    expect(result.status).toBe(200);
    return result.frames;
  };
  const expectRefutedBeforeAnyAgent = (frames: Frame[]) => {
    expect(types(frames)).not.toContain('node_start');
    expect(types(frames)).not.toContain('plan_generated');
    expect(types(frames).at(-1)).toBe('run_failed');
    return payloadOf(frames, 'run_failed');
  };

  it.each([1, 3, 7])(
    'a contract for exactly %i variants runs to complete with that many',
    async (n) => {
      const frames = await run(envelope(variants({ type: 'array', minItems: n, maxItems: n, items: item })));
      expect(types(frames).at(-1)).toBe('complete');
      expect(types(frames)).not.toContain('plan_rejected');
      expect(payloadOf(frames, 'plan_generated').diagnostics.verdict).toBe('proven');
      const output = payloadOf(frames, 'complete').output;
      expect(output.copyVariants).toHaveLength(n);
      // Every variant is its own, across lanes too (each lane is told its part of the whole).
      expect(new Set(output.copyVariants.map((v: { headline: string }) => v.headline)).size).toBe(n);
    },
    60_000,
  );

  it('a required property no capability produces is refuted before any agent runs, naming it', async () => {
    const frames = await run(
      envelope(
        variants({ type: 'array', items: item }, { summary: { type: 'string' } }, [
          'copyVariants',
          'summary',
        ]),
      ),
    );
    const failed = expectRefutedBeforeAnyAgent(frames);
    expect(JSON.stringify(failed.diagnostics.failures)).toContain('summary');
  }, 60_000);

  it('an optional property and a soft constraint no capability produces never block the plan', async () => {
    const soft = { constraintId: 'has_summary', level: 'soft', expr: { '!': { missing: ['summary'] } } };
    const frames = await run(
      envelope(
        variants({ type: 'array', minItems: 2, maxItems: 2, items: item }, { summary: { type: 'string' } }),
        [soft],
      ),
    );
    expect(types(frames).at(-1)).toBe('complete');
    const output = payloadOf(frames, 'complete').output;
    expect(output.summary).toBeUndefined();
    expect(payloadOf(frames, 'plan_generated').diagnostics.warnings).toEqual([
      expect.objectContaining({ constraintId: 'has_summary' }),
    ]);
  }, 60_000);

  it('an item field the producing facet cannot carry is refuted with the path and the keywords', async () => {
    const stricter = { ...item, required: [...item.required, 'hashtags'] };
    const failed = expectRefutedBeforeAnyAgent(
      await run(envelope(variants({ type: 'array', minItems: 2, maxItems: 2, items: stricter }))),
    );
    const failure = failed.diagnostics.failures.find((f: any) => f.details?.pointer === '/copyVariants');
    expect(failure).toMatchObject({
      cause: 'schema_incompatible',
      nodeId: expect.any(String),
      details: { verdict: 'refuted' },
    });
    expect(JSON.stringify(failure)).toContain('hashtags');
  }, 60_000);

  it('caller item limits stricter than the facet (maxLength, enum) are pushed into the writer and hold', async () => {
    const stricter = {
      ...item,
      properties: {
        headline: { type: 'string', maxLength: 40 },
        body: { type: 'string', maxLength: 120 },
        callToAction: { type: 'string', enum: ['Apply now', 'Join us'] },
      },
    };
    const frames = await run(
      envelope(variants({ type: 'array', minItems: 3, maxItems: 3, items: stricter })),
    );
    expect(types(frames).at(-1)).toBe('complete');
    const writer = payloadOf(frames, 'plan_generated').plan.nodes.find(
      (n: any) => n.bindings?.outputs?.copyVariants,
    );
    expect(writer.bindings.outputs.copyVariants.items.properties.body.maxLength).toBe(120);
    for (const v of payloadOf(frames, 'complete').output.copyVariants) {
      expect([...v.body].length).toBeLessThanOrEqual(120);
      expect([...v.headline].length).toBeLessThanOrEqual(40);
      expect(['Apply now', 'Join us']).toContain(v.callToAction);
    }
  }, 60_000);

  it.each([
    [
      'minItems 5 with maxItems 3',
      { type: 'array', minItems: 5, maxItems: 3, items: item },
      ['minItems', 'maxItems'],
    ],
    [
      'an enum that excludes a const',
      {
        type: 'array',
        items: {
          ...item,
          properties: {
            ...item.properties,
            callToAction: { type: 'string', const: 'Go', enum: ['Apply now'] },
          },
        },
      },
      ['const', 'enum'],
    ],
  ])(
    '%s is refuted as schema_incompatible with the path',
    async (_name, copyVariants, keywords) => {
      const failed = expectRefutedBeforeAnyAgent(await run(envelope(variants(copyVariants))));
      const failure = failed.diagnostics.failures.find((f: any) => f.cause === 'schema_incompatible');
      expect(failure.details.pointer).toBe('/copyVariants');
      for (const k of keywords) expect(failure.details.keywords).toContain(k);
    },
    60_000,
  );

  it('JSONLogic the spec uses is proved, not guessed: a negated missing and a quantifier over the items', async () => {
    const constraints = [
      { constraintId: 'present', level: 'hard', expr: { '!': { missing: ['copyVariants'] } } },
      {
        constraintId: 'short',
        level: 'hard',
        expr: { all: [{ var: 'copyVariants' }, { '<=': [{ var: 'callToAction.length' }, 400] }] },
      },
      { constraintId: 'three', level: 'hard', expr: { '==': [{ var: 'copyVariants.length' }, 3] } },
    ];
    const frames = await run(envelope(variants({ type: 'array', items: item }), constraints));
    expect(types(frames).filter((t) => t.startsWith('plan_'))).toEqual(['plan_requested', 'plan_generated']);
    expect(payloadOf(frames, 'plan_generated').diagnostics).toMatchObject({
      status: 'accepted',
      verdict: 'proven',
    });
    expect(types(frames).at(-1)).toBe('complete');
    expect(payloadOf(frames, 'complete').output.copyVariants).toHaveLength(3);
  }, 60_000);
});
