'use strict';
// The bench's trivial agents: five capabilities that each answer a fixed, valid value for the one
// facet they produce, chained through the facet catalog so the rule-based planner builds a 5-node
// plan (echo-1 → echo-2 → echo-3 → {echo-4, echo-5}: the catalog has three facets that flow both
// ways, so no chain of five agents can pass values from one to the next). Run as a process
// (`node bench/agents/echo.js`, FLEX_NATS_URL / FLEX_NATS_PREFIX) for distributed Flex, or started
// on an embedded runtime's messaging with startEchoAgents.
const { join } = require('node:path');

const ROOT = join(__dirname, '..', '..');

const VALUES = {
  writerBrief: { angle: 'echo', keyPoints: ['echo'], constraints: [] },
  planKnobs: { variantCount: 1, length: 'short' },
  copyVariants: [{ headline: 'echo', body: 'echo', callToAction: 'echo' }],
  qaFindings: { overallScore: 1, scores: { clarity: 1 }, issues: [], overallStatus: 'pass' },
  recommendationSet: [{ severity: 'low', recommendation: 'echo', rationale: 'echo' }],
};

/** [capability id, input facet, output facet]. */
const CHAIN = [
  ['BenchEcho1.brief', 'objectiveBrief', 'writerBrief'],
  ['BenchEcho2.knobs', 'writerBrief', 'planKnobs'],
  ['BenchEcho3.copy', 'planKnobs', 'copyVariants'],
  ['BenchEcho4.review', 'copyVariants', 'qaFindings'],
  ['BenchEcho5.recommend', 'copyVariants', 'recommendationSet'],
];
const ECHO_CAPABILITIES = CHAIN.map(([id]) => id);
const REFERENCE_CAPABILITIES = [
  'StrategyManagerAgent.briefing',
  'ContentGeneratorAgent.linkedinVariants',
  'QualityAssuranceAgent.contentReview',
];

/**
 * The agents. With `gate`, the first one answers only once the gate is open (the SSE bench holds
 * runs there until its readers are all attached).
 */
function echoAgents(gate) {
  const { defineAgent } = require(join(ROOT, 'libs/agent-sdk/dist'));
  return CHAIN.map(([capabilityId, input, output], i) =>
    defineAgent({
      registration: {
        capabilityId,
        version: '1',
        displayName: capabilityId,
        summary: `Answers a fixed ${output}.`,
        inputContract: [input],
        outputContract: [output],
      },
      handle: async () => {
        if (gate && i === 0) await gate;
        return { [output]: VALUES[output] };
      },
    }),
  );
}

/** Starts the five agents on `messaging`; resolves once the registry accepted all of them. */
async function startEchoAgents(messaging, prefix, gate) {
  const { startAgent } = require(join(ROOT, 'libs/agent-sdk/dist'));
  const handles = [];
  for (const agent of echoAgents(gate)) handles.push(await startAgent(agent, { messaging, prefix }));
  await Promise.all(handles.map((h) => h.ready));
  return { stop: () => Promise.all(handles.map((h) => h.stop('bench_done'))) };
}

/**
 * The envelope whose contract needs all five: QA findings and recommendations of echoed copy. No
 * standby fallback and no merge node (the two outputs are taken as the last two agents give them):
 * the plan is the five agents and nothing else.
 */
function echoEnvelope() {
  return {
    objective: 'Bench: five trivial echo agents',
    inputs: {},
    policies: {
      planner: {
        topology: { forbiddenKinds: ['fallback', 'transformation'] },
        // The reference agents produce some of the same facets: keep them out when they are registered too.
        selection: { require: ECHO_CAPABILITIES, forbid: REFERENCE_CAPABILITIES },
      },
    },
    outputContract: {
      mode: 'json_schema',
      schema: {
        type: 'object',
        required: ['qaFindings', 'recommendationSet'],
        properties: { qaFindings: { type: 'object' }, recommendationSet: { type: 'array' } },
      },
    },
  };
}

module.exports = {
  CHAIN,
  ECHO_CAPABILITIES,
  REFERENCE_CAPABILITIES,
  VALUES,
  echoAgents,
  startEchoAgents,
  echoEnvelope,
};

if (require.main === module) {
  (async () => {
    const { NatsMessaging } = require(join(ROOT, 'libs/bus/dist'));
    const messaging = await NatsMessaging.connect(process.env.FLEX_NATS_URL, { name: 'flex-bench-echo' });
    // BENCH_ECHO_GATE=1: the first agent waits for SIGUSR2 (or for the process to be told to stop).
    let open;
    const gate = process.env.BENCH_ECHO_GATE === '1' ? new Promise((resolve) => (open = resolve)) : undefined;
    process.once('SIGUSR2', () => open?.());
    const agents = await startEchoAgents(messaging, process.env.FLEX_NATS_PREFIX ?? 'flex', gate);
    process.stderr.write('{"msg":"echo_agents_ready"}\n');
    const stop = () => {
      open?.(); // held invocations finish, so the drain does not wait for ever
      setTimeout(() => process.exit(1), 10_000).unref();
      agents
        .stop()
        .then(() => messaging.drain())
        .finally(() => process.exit(0));
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  })().catch((error) => {
    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  });
}
