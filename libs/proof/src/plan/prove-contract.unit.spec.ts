import { normalizeEnvelope, type PlanGraph, type PlanNode, type TaskEnvelope } from '@flex/contracts';
import { compileUntrustedSchema } from '@flex/facets';
import { bindContract } from './bind-contract';
import { proveContract } from './prove-contract';

const item = {
  type: 'object',
  required: ['headline', 'body', 'callToAction'],
  properties: { headline: { type: 'string' }, body: { type: 'string' }, callToAction: { type: 'string' } },
};

function envelopeWith(
  schema: Record<string, unknown>,
  constraints: unknown[] = [],
  inputs: Record<string, unknown> = {},
): TaskEnvelope {
  const result = normalizeEnvelope({
    objective: 'Write posts',
    inputs: { channel: 'linkedin', ...inputs },
    outputContract: { schema, constraints },
  });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.envelope;
}

const node = (over: Partial<PlanNode> & Pick<PlanNode, 'id' | 'kind'>): PlanNode => ({
  label: over.id,
  inputFacets: [],
  outputFacets: [],
  ...over,
});
const strategy = node({
  id: 'strategy-1',
  kind: 'structuring',
  capabilityId: 'S.brief',
  inputFacets: ['objectiveBrief'],
  outputFacets: ['writerBrief', 'planKnobs'],
});
const writer = (id = 'execution-1') =>
  node({
    id,
    kind: 'execution',
    capabilityId: 'W.write',
    inputFacets: ['writerBrief', 'planKnobs'],
    outputFacets: ['copyVariants'],
  });
const qa = node({
  id: 'validation-1',
  kind: 'validation',
  capabilityId: 'Q.review',
  inputFacets: ['copyVariants'],
  outputFacets: ['qaFindings'],
});
const plan = (
  nodes: PlanNode[],
  edges = nodes.slice(1).map((n, i) => ({ from: nodes[i].id, to: n.id })),
): PlanGraph => ({
  planVersion: 1,
  nodes,
  edges,
  metadata: { plannerId: 'test', plannerVersion: '1', determinism: 'full', inputHash: 'a'.repeat(64) },
});
const schemaOf = (
  copyVariants: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  required = ['copyVariants'],
) => ({
  type: 'object',
  required,
  properties: { copyVariants, ...extra },
});

describe('the contract binds the plan', () => {
  it('pushes the caller schema and its count into the producing node: its contract and its knob', () => {
    const envelope = envelopeWith(schemaOf({ type: 'array', minItems: 3, maxItems: 3, items: item }));
    const bound = bindContract(plan([strategy, writer()]), envelope);
    const w = bound.nodes.find((n) => n.id === 'execution-1');
    expect(w?.bindings).toEqual({
      outputs: { copyVariants: { type: 'array', minItems: 3, maxItems: 3, items: item } },
      inputs: { planKnobs: { variantCount: 3 } },
    });
    expect(bound.nodes.find((n) => n.id === 'strategy-1')?.bindings).toBeUndefined();
    expect(proveContract(bound, envelope).verdict).toBe('proven');
  });

  it('asks for the requested count when the contract allows it, the nearest bound when not', () => {
    const ranged = (n: number) =>
      envelopeWith(schemaOf({ type: 'array', minItems: 2, maxItems: 4, items: item }), [], {
        variantCount: n,
      });
    const count = (e: TaskEnvelope) =>
      bindContract(plan([strategy, writer()]), e).nodes[1].bindings?.inputs?.planKnobs;
    expect(count(ranged(3))).toEqual({ variantCount: 3 });
    expect(count(ranged(9))).toEqual({ variantCount: 4 });
    expect(count(ranged(1))).toEqual({ variantCount: 2 });
  });

  it('reads a count from a hard constraint on the length as well as from the schema', () => {
    const envelope = envelopeWith(schemaOf({ type: 'array', items: item }), [
      { constraintId: 'five', level: 'hard', expr: { '==': [{ var: 'copyVariants.length' }, 5] } },
    ]);
    const bound = bindContract(plan([strategy, writer()]), envelope);
    expect(bound.nodes[1].bindings?.inputs).toEqual({ planKnobs: { variantCount: 5 } });
    const proof = proveContract(bound, envelope);
    expect(proof.obligations.find((o) => o.constraintId === 'five')?.verdict).toBe('proven');
  });

  it('carries local definitions along with a fragment that refers to them', () => {
    const envelope = envelopeWith({
      ...schemaOf({ type: 'array', items: { $ref: '#/definitions/variant' } }),
      definitions: { variant: item },
    });
    const bound = bindContract(plan([strategy, writer()]), envelope);
    const binding = bound.nodes[1].bindings?.outputs?.copyVariants;
    expect(binding).toMatchObject({
      items: { $ref: '#/definitions/variant' },
      definitions: { variant: item },
    });
    // On its own, the fragment still means what it meant inside the caller's schema.
    const validate = compileUntrustedSchema(binding);
    expect(validate([{ headline: 'h', body: 'b', callToAction: 'c' }])).toEqual([]);
    expect(validate([{ headline: 'h' }])).not.toEqual([]);
    expect(proveContract(bound, envelope).verdict).not.toBe('refuted');
  });
});

describe('the proof is three-valued', () => {
  it('an unbound node whose facet does not imply the caller schema is unknown, naming the binding', () => {
    const envelope = envelopeWith(schemaOf({ type: 'array', minItems: 3, maxItems: 3, items: item }));
    const proof = proveContract(plan([strategy, writer()]), envelope);
    expect(proof.verdict).toBe('unknown');
    expect(proof.obligations).toEqual([
      expect.objectContaining({
        kind: 'schema',
        pointer: '/copyVariants',
        verdict: 'unknown',
        nodeIds: ['execution-1'],
      }),
    ]);
  });

  it('an unbound node whose facet already implies the caller schema is proven', () => {
    const envelope = envelopeWith(schemaOf({ type: 'array', items: item }));
    expect(
      proveContract(plan([strategy, { ...writer(), inputFacets: ['writerBrief'] }]), envelope).verdict,
    ).toBe('proven');
  });

  it('a required property nobody produces is refuted as coverage; an optional one is fine', () => {
    const required = envelopeWith(
      schemaOf({ type: 'array', items: item }, { summary: { type: 'string' } }, ['copyVariants', 'summary']),
    );
    const refuted = proveContract(bindContract(plan([strategy, writer()]), required), required);
    expect(refuted.verdict).toBe('refuted');
    expect(refuted.obligations.find((o) => o.pointer === '/summary')).toMatchObject({
      kind: 'coverage',
      verdict: 'refuted',
      findings: [{ keywords: ['required'] }],
    });
    const optional = envelopeWith(schemaOf({ type: 'array', items: item }, { summary: { type: 'string' } }));
    expect(proveContract(bindContract(plan([strategy, writer()]), optional), optional).verdict).toBe(
      'proven',
    );
  });

  it('bounds that cannot all hold are refuted with the path and both keywords', () => {
    const envelope = envelopeWith(schemaOf({ type: 'array', minItems: 5, maxItems: 3, items: item }));
    const proof = proveContract(bindContract(plan([strategy, writer()]), envelope), envelope);
    expect(proof.verdict).toBe('refuted');
    const o = proof.obligations.find((x) => x.verdict === 'refuted');
    expect(o).toMatchObject({ kind: 'schema', pointer: '/copyVariants', nodeIds: ['execution-1'] });
    expect(o?.findings.flatMap((f) => f.keywords)).toEqual(expect.arrayContaining(['minItems', 'maxItems']));
  });

  it('a hard constraint no producible output meets is refuted; a soft one only warns; an undecidable one is unknown', () => {
    const rules = [
      { constraintId: 'over', level: 'hard', expr: { '>': [{ var: 'qaFindings.overallScore' }, 1] } },
      { constraintId: 'soft_over', level: 'soft', expr: { '>': [{ var: 'qaFindings.overallScore' }, 1] } },
      { constraintId: 'good', level: 'hard', expr: { '>=': [{ var: 'qaFindings.overallScore' }, 0.8] } },
    ];
    const envelope = envelopeWith(schemaOf({ type: 'array', items: item }), rules);
    const proof = proveContract(bindContract(plan([strategy, writer(), qa]), envelope), envelope);
    const byId = (id: string) => proof.obligations.find((o) => o.constraintId === id);
    expect(byId('over')).toMatchObject({ level: 'hard', verdict: 'refuted' });
    expect(byId('soft_over')).toMatchObject({ level: 'soft', verdict: 'refuted' });
    expect(byId('good')).toMatchObject({
      level: 'hard',
      verdict: 'unknown',
      findings: [{ pointer: '/qaFindings/overallScore' }],
    });
    expect(proof.verdict).toBe('refuted');
  });

  it('a malformed graph is refuted, never proven', () => {
    const envelope = envelopeWith(schemaOf({ type: 'array', items: item }));
    const cyclic = plan(
      [strategy, writer()],
      [
        { from: 'strategy-1', to: 'execution-1' },
        { from: 'execution-1', to: 'strategy-1' },
      ],
    );
    expect(proveContract(cyclic, envelope).verdict).toBe('refuted');
    expect(bindContract(cyclic, envelope)).toBe(cyclic);
  });
});

describe('lanes: a concatenation of several calls', () => {
  const lanes = (): PlanGraph => {
    const merge = node({
      id: 'merge-1',
      kind: 'transformation',
      inputFacets: ['copyVariants'],
      outputFacets: ['copyVariants'],
      merge: { copyVariants: 'concat' },
    });
    return plan(
      [strategy, writer('lane-1'), writer('lane-2'), merge],
      [
        { from: 'strategy-1', to: 'lane-1' },
        { from: 'strategy-1', to: 'lane-2' },
        { from: 'lane-1', to: 'merge-1' },
        { from: 'lane-2', to: 'merge-1' },
      ],
    );
  };

  it('binds each lane to its share and proves the whole', () => {
    const envelope = envelopeWith(schemaOf({ type: 'array', minItems: 7, maxItems: 7, items: item }));
    const bound = bindContract(lanes(), envelope);
    expect(bound.nodes.find((n) => n.id === 'lane-1')?.bindings?.inputs).toEqual({
      planKnobs: { variantCount: 4 },
    });
    expect(bound.nodes.find((n) => n.id === 'lane-2')?.bindings?.inputs).toEqual({
      planKnobs: { variantCount: 3 },
    });
    expect(bound.nodes.find((n) => n.id === 'lane-1')?.bindings?.part).toEqual({
      facet: 'copyVariants',
      offset: 0,
      total: 7,
    });
    expect(bound.nodes.find((n) => n.id === 'lane-2')?.bindings?.part).toEqual({
      facet: 'copyVariants',
      offset: 4,
      total: 7,
    });
    expect(proveContract(bound, envelope).verdict).toBe('proven');
  });

  it('leaves uniqueItems over the concatenation to run time', () => {
    const envelope = envelopeWith(
      schemaOf({ type: 'array', minItems: 7, maxItems: 7, uniqueItems: true, items: item }),
    );
    const proof = proveContract(bindContract(lanes(), envelope), envelope);
    expect(proof.verdict).toBe('unknown');
    expect(proof.obligations[0].findings.flatMap((f) => f.keywords)).toContain('uniqueItems');
  });

  it('refutes a reader whose input contract cannot hold the whole', () => {
    const envelope = envelopeWith(schemaOf({ type: 'array', minItems: 7, maxItems: 7, items: item }));
    const withQa = lanes();
    withQa.nodes.push(qa);
    withQa.edges.push({ from: 'merge-1', to: 'validation-1' });
    const proof = proveContract(bindContract(withQa, envelope), envelope);
    expect(proof.obligations.find((o) => o.kind === 'input')).toMatchObject({
      verdict: 'refuted',
      nodeIds: ['validation-1', 'merge-1'],
    });
  });
});
