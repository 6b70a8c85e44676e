'use strict';
// The contract proof (issue 10 "the proof's cost"): bind and prove plans of 10, 100 and 500 nodes
// (500 is the plan size cap) against a typical contract, and a plan at the envelope size limits:
// a caller schema 64 levels deep, and constraints at the JSONLogic caps (2,000 nodes each) that the
// abstract evaluator must walk. Medians of many runs. Targets: 100 nodes < 5 ms, limits < 250 ms.
// Requires the built packages (`npm run build`).
const { join } = require('node:path');
const { line, summarize } = require('./stats');

const ROOT = join(__dirname, '..');
const { normalizeEnvelope, PlanGraphSchema, LIMITS } = require(join(ROOT, 'libs/contracts/dist/index.js'));
const { bindContract, proveContract } = require(join(ROOT, 'libs/proof/dist/index.js'));
const { provePlan } = require(join(ROOT, 'services/validator/dist/validation/prove-plan.js'));

const { REFERENCE: REGISTRY } = require('./registry');
const item = { type: 'object', required: ['headline', 'body', 'callToAction'], properties: { headline: { type: 'string', maxLength: 80 }, body: { type: 'string', maxLength: 600 }, callToAction: { type: 'string', enum: ['Apply now', 'Join us'] } } };

function envelopeOf(schema, constraints) {
  const normalized = normalizeEnvelope({ objective: 'Write LinkedIn posts promoting AwesomePoster', inputs: { channel: 'linkedin', toneOfVoice: 'inspiring' }, outputContract: { schema, constraints } });
  if (!normalized.ok) throw new Error(JSON.stringify(normalized.errors.slice(0, 3)));
  return normalized.envelope;
}

const typical = envelopeOf(
  { type: 'object', required: ['copyVariants'], properties: { copyVariants: { type: 'array', minItems: 3, maxItems: 3, items: item } } },
  [
    { constraintId: 'min_qa', level: 'hard', expr: { '>=': [{ var: 'qaFindings.overallScore' }, 0.8] } },
    { constraintId: 'three', level: 'hard', expr: { '==': [{ var: 'copyVariants.length' }, 3] } },
    { constraintId: 'cta', level: 'hard', expr: { all: [{ var: 'copyVariants' }, { '!!': [{ var: 'callToAction' }] }] } },
    { constraintId: 'present', level: 'soft', expr: { '!': { missing: ['copyVariants', 'writerBrief'] } } },
  ],
);

/** strategy, then writer and QA nodes alternating, each following the previous one and the one three back. */
function planOf(size) {
  const nodes = [{ id: 'n0', kind: 'structuring', label: 'Strategy', capabilityId: 'StrategyManagerAgent.briefing', inputFacets: ['objectiveBrief', 'toneOfVoice'], outputFacets: ['writerBrief', 'planKnobs', 'strategicRationale'] }];
  for (let i = 1; i < size - 1; i++) {
    nodes.push(
      i % 2 === 1
        ? { id: `n${i}`, kind: 'execution', label: 'Writer', capabilityId: 'ContentGeneratorAgent.linkedinVariants', inputFacets: ['writerBrief', 'planKnobs', 'toneOfVoice'], outputFacets: ['copyVariants'], enforces: ['three', 'cta'] }
        : { id: `n${i}`, kind: 'validation', label: 'QA', capabilityId: 'QualityAssuranceAgent.contentReview', inputFacets: ['copyVariants', 'writerBrief'], outputFacets: ['qaFindings', 'recommendationSet'], enforces: ['min_qa'] },
    );
  }
  const edges = [];
  for (let i = 1; i < nodes.length; i++) {
    edges.push({ from: `n${i - 1}`, to: `n${i}` });
    if (i >= 3) edges.push({ from: `n${i - 3}`, to: `n${i}` });
  }
  const last = nodes[nodes.length - 1];
  nodes.push({ id: 'fallback-1', kind: 'fallback', label: 'Human', inputFacets: last.inputFacets, outputFacets: last.outputFacets, fallbackFor: last.id });
  edges.push({ from: last.id, to: 'fallback-1' });
  const plan = { planVersion: 1, nodes, edges, metadata: { plannerId: 'bench', plannerVersion: '1', determinism: 'full', inputHash: 'a'.repeat(64) } };
  // Over the contract's 500-node cap the plan is used as built (the proof takes any size).
  return nodes.length <= 500 ? PlanGraphSchema.parse(plan) : plan;
}

/** A caller schema nested to the depth cap, and constraints at the JSONLogic node cap. */
function atTheLimits() {
  let deep = { type: 'string', maxLength: 50 };
  for (let d = 0; d < LIMITS.schemaMaxDepth / 2 - 4; d++) deep = { type: 'object', properties: { next: deep } };
  const comparisons = Math.floor(LIMITS.jsonLogicMaxNodes / 5) - 2; // {"<=": [{"var": p}, k]} is 5 nodes
  const big = (i) => ({ and: Array.from({ length: comparisons }, (_, k) => ({ '<=': [{ var: k % 2 ? 'copyVariants.length' : `qaFindings.scores.clarity` }, 3 + ((i + k) % 7)] })) });
  const constraints = Array.from({ length: 20 }, (_, i) => ({ constraintId: `big_${i}`, level: i % 3 ? 'soft' : 'hard', expr: big(i) }));
  constraints.push({ constraintId: 'quantified', level: 'hard', expr: { all: [{ var: 'copyVariants' }, { and: Array.from({ length: comparisons }, (_, k) => ({ '<=': [{ var: 'headline' }, `~${k}`] })) }] } });
  const schema = { type: 'object', required: ['copyVariants'], properties: { copyVariants: { type: 'array', minItems: 3, maxItems: 3, items: { ...item, properties: { ...item.properties, extra: deep } } } } };
  const envelope = envelopeOf(schema, constraints);
  const bytes = Buffer.byteLength(JSON.stringify(envelope));
  return { envelope, bytes };
}

/** Bind and prove `plan` `iterations` times (after a warm-up); prints a line unless `quiet`. */
function measure(label, plan, envelope, iterations, quiet = false) {
  const bound = bindContract(plan, envelope);
  const first = provePlan(bound, envelope, REGISTRY);
  for (let i = 0; i < Math.min(iterations, 50); i++) provePlan(bindContract(plan, envelope), envelope, REGISTRY); // warm-up
  const samples = [];
  for (let i = 0; i < iterations; i++) {
    const started = process.hrtime.bigint();
    provePlan(bindContract(plan, envelope), envelope, REGISTRY);
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  if (!quiet) console.log(line(`${label} (${first.status}, ${first.verdict})`, samples));
  const s = summarize(samples);
  return { medianMs: s.median, p90Ms: s.p90, n: s.n, status: `${first.status}, ${first.verdict}` };
}

/** The bench driver's proof section: bind + prove plans of `sizes` nodes against the typical contract. */
function proofSection(sizes, iterationsOf) {
  return sizes.map((size) => ({ nodes: size, ...measure(`bind + prove ${size}-node plan`, planOf(size), typical, iterationsOf(size), true) }));
}

module.exports = { planOf, proofSection };
if (require.main !== module) return;

const medians = {};
for (const [size, iterations] of [[10, 500], [100, 200], [500, 40]]) medians[size] = measure(`bind + prove ${size}-node plan`, planOf(size), typical, iterations).medianMs;
const limits = atTheLimits();
const proof = proveContract(bindContract(planOf(100), limits.envelope), limits.envelope);
console.log(`envelope at the limits: ${(limits.bytes / 1024).toFixed(0)} KiB, ${limits.envelope.outputContract.constraints.length} constraints, verdict ${proof.verdict}`);
medians.limits = measure('bind + prove at the envelope limits (100 nodes)', planOf(100), limits.envelope, 20).medianMs;
console.log(`targets: 100 nodes ${medians[100] < 5 ? 'met' : 'MISSED'} (< 5 ms), limits ${medians.limits < 250 ? 'met' : 'MISSED'} (< 250 ms)`);
