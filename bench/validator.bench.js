'use strict';
// Plan validation (issue 3 "Speed"): prove plans of 10, 100 and 1,000 agent nodes (a DAG: a chain
// with extra fan-in edges) against a registry snapshot and an output contract with hard, soft and
// informational constraints; schemas are cached after the first run. Prints the median of many runs.
// Requires the built packages (`npm run build`).
const { join } = require('node:path');
const { line } = require('./stats');

const ROOT = join(__dirname, '..');
const { normalizeEnvelope, PlanGraphSchema } = require(join(ROOT, 'libs/contracts/dist/index.js'));
const { provePlan } = require(join(ROOT, 'services/validator/dist/validation/prove-plan.js'));

const { reg, REFERENCE } = require('./registry');
const REGISTRY = [
  ...REFERENCE,
  // A larger snapshot than the plan needs, as a live registry would be.
  ...Array.from({ length: 50 }, (_, i) => reg(`ThirdPartyAgent${i}.write`, ['writerBrief'], ['copyVariants'])),
];

const normalized = normalizeEnvelope({
  objective: 'Create LinkedIn post variants promoting AwesomePoster',
  inputs: { channel: 'linkedin', variantCount: 2, toneOfVoice: 'inspiring' },
  outputContract: {
    schema: {
      type: 'object',
      required: ['copyVariants'],
      properties: {
        copyVariants: {
          type: 'array',
          minItems: 2,
          maxItems: 2,
          items: { type: 'object', required: ['headline', 'body', 'callToAction'], properties: { headline: { type: 'string' }, body: { type: 'string' }, callToAction: { type: 'string' } } },
        },
      },
    },
    constraints: [
      { constraintId: 'min_qa', level: 'hard', expr: { '>=': [{ var: 'qaFindings.overallScore' }, 0.8] } },
      { constraintId: 'exact_two', level: 'soft', expr: { '==': [{ var: 'copyVariants.length' }, 2] } },
      { constraintId: 'cta', level: 'hard', expr: { all: [{ var: 'copyVariants' }, { '!!': [{ var: 'callToAction' }] }] } },
      { constraintId: 'tone_hint', level: 'informational', expr: { '!!': [{ var: 'toneOfVoice' }] } },
    ],
  },
});
if (!normalized.ok) throw new Error(JSON.stringify(normalized.errors));
const envelope = normalized.envelope;

/** strategy-1, then writer and QA nodes alternating; each node follows the previous one and, from the fourth on, the one three back. */
function planOf(size) {
  const nodes = [{ id: 'n0', kind: 'structuring', label: 'Strategy', capabilityId: 'StrategyManagerAgent.briefing', inputFacets: ['objectiveBrief', 'toneOfVoice'], outputFacets: ['writerBrief', 'planKnobs', 'strategicRationale'] }];
  for (let i = 1; i < size; i++) {
    const writer = i % 2 === 1;
    nodes.push(
      writer
        ? { id: `n${i}`, kind: 'execution', label: 'Writer', capabilityId: 'ContentGeneratorAgent.linkedinVariants', inputFacets: ['writerBrief', 'planKnobs', 'toneOfVoice'], outputFacets: ['copyVariants'], enforces: ['cta'] }
        : { id: `n${i}`, kind: 'validation', label: 'QA', capabilityId: 'QualityAssuranceAgent.contentReview', inputFacets: ['copyVariants', 'writerBrief'], outputFacets: ['qaFindings', 'recommendationSet'], enforces: ['min_qa'] },
    );
  }
  const edges = [];
  for (let i = 1; i < size; i++) {
    edges.push({ from: `n${i - 1}`, to: `n${i}` });
    if (i >= 3) edges.push({ from: `n${i - 3}`, to: `n${i}` });
  }
  const last = nodes[nodes.length - 1];
  nodes.push({ id: 'fallback-1', kind: 'fallback', label: 'Human', inputFacets: last.inputFacets, outputFacets: last.outputFacets, fallbackFor: last.id });
  edges.push({ from: last.id, to: 'fallback-1' });
  // Plans over the contract's 500-node cap are built directly (the validator proves any size).
  const plan = { planVersion: 1, nodes, edges, metadata: { plannerId: 'bench', plannerVersion: '1', determinism: 'full', inputHash: 'a'.repeat(64) } };
  if (nodes.length <= 500) PlanGraphSchema.parse(plan);
  return plan;
}

function measure(label, size, iterations, freshEnvelope) {
  const plan = planOf(size);
  const first = provePlan(plan, envelope, REGISTRY); // compiles and caches schemas
  if (first.status === 'rejected') throw new Error(`${size}-node plan rejected: ${JSON.stringify(first.failures.slice(0, 3))}`);
  for (let i = 0; i < Math.min(iterations, 200); i++) provePlan(plan, envelope, REGISTRY); // JIT warm-up
  const samples = [];
  for (let i = 0; i < iterations; i++) {
    // A fresh envelope object is what a handler sees after loading the stream: nothing derived from it is reused.
    const env = freshEnvelope ? structuredClone(envelope) : envelope;
    const started = process.hrtime.bigint();
    provePlan(plan, env, REGISTRY);
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  console.log(line(`${label} (${first.status}, score ${first.satisfactionScore})`, samples));
}

for (const [size, iterations] of [[10, 5000], [100, 2000], [1000, 300]]) measure(`validate ${size}-node plan`, size, iterations, false);
for (const [size, iterations] of [[10, 2000], [100, 1000], [1000, 200]]) measure(`validate ${size}-node plan, envelope reloaded`, size, iterations, true);
