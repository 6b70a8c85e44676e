'use strict';
// How cost grows, on Flex distributed:
// - plans of 5, 20 and 100 nodes: the sample envelope asking for 2, 12 and 70 variants (one branch
//   node per variant, the writer split into lanes of at most 5, a merge node and a standby fallback
//   per lane), run one at a time with the reference agents;
// - start latency (POST run.stream until the `start` frame: the run is stored and acknowledged)
//   with the store as the bench found it, and again after bulk-inserting synthetic events of
//   finished runs with SQL (1M; 100k with --quick) and their rows in the runs read model, with
//   every checkpoint moved past them in the same transaction, as if the system had processed them.
//   The machine's load moves between the two, so a second Flex distributed on a database of its own
//   whose store does not grow (the control) takes its samples in turn with the grown one, before and
//   after: the ratio is the grown one's change over the control's at the same moments.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { Client } = require('pg');
const { runFlex, framesOf } = require('../lib/flex-http');
const { median, percentile } = require('../lib/load');
const { createMeter } = require('../lib/proc');
const { BODIES } = require('../lib/systems');
const { startDistributed } = require('../systems/flex-distributed');

const ROOT = join(__dirname, '..', '..');
const SAMPLE = JSON.parse(readFileSync(join(ROOT, 'examples/envelope.json'), 'utf8'));
const SIZES = [
  { nodes: 5, variants: 2 },
  { nodes: 20, variants: 12 },
  { nodes: 100, variants: 70 },
];

function envelopeWithVariants(variants) {
  const envelope = structuredClone(SAMPLE);
  envelope.inputs.variantCount = variants;
  const copy = envelope.outputContract.schema.properties.copyVariants;
  copy.minItems = variants;
  copy.maxItems = variants;
  delete envelope.specialInstructions; // they name variants A and B
  return JSON.stringify(envelope);
}

async function planSize(ctx, flex, db, { nodes, variants }, runs) {
  const body = envelopeWithVariants(variants);
  const first = await runFlex(flex.url, body, { keep: true }); // warm-up, and what the plan is
  const plan = framesOf(first.text, 'plan_generated')[0]?.payload?.plan;
  if (plan?.nodes?.length !== nodes)
    throw new Error(`${variants} variants gave a ${plan?.nodes?.length}-node plan, not ${nodes}`);
  const events = (first.text.match(/^id: /gm) ?? []).length;
  const agentCalls = framesOf(first.text, 'node_complete').filter((e) => e.payload?.capabilityId).length;
  const meter = createMeter({
    pids: flex.pids,
    admin: ctx.infra.admin,
    database: db.name,
    infraPids: () => (ctx.infra.natsPid ? [ctx.infra.natsPid] : []),
  });
  await meter.start();
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push((await runFlex(flex.url, body)).ms);
  const used = await meter.stop();
  const p50 = median(samples);
  ctx.log(`growth: ${nodes}-node plan: p50 ${p50.toFixed(0)} ms`);
  return {
    nodes,
    variants,
    agentCalls,
    eventsPerRun: events,
    runs,
    p50Ms: p50,
    msPerNode: p50 / nodes,
    cpuMsPerRun: (used.cpuSeconds.total * 1000) / runs,
  };
}

/** Start latencies of each of `urls`, sample by sample in turn (the first url first on even turns). */
async function startLatencies(urls, samples) {
  const first = urls.map(() => []);
  const whole = urls.map(() => []);
  for (let i = 0; i < samples; i++) {
    const order = i % 2 === 0 ? urls.keys() : [...urls.keys()].reverse();
    for (const k of order) {
      const r = await runFlex(urls[k], BODIES.echo);
      first[k].push(r.firstEventMs);
      whole[k].push(r.ms);
    }
  }
  return urls.map((_, k) => ({
    samples,
    p50Ms: median(first[k]),
    p99Ms: percentile(
      [...first[k]].sort((a, b) => a - b),
      0.99,
    ),
    runP50Ms: median(whole[k]),
  }));
}

/**
 * Synthetic finished runs, 10 events each, with their rows in the runs read model, in one transaction
 * that also moves every checkpoint (projections, consumers) past them: to the system they are history
 * it has already processed.
 */
async function seedHistory(url, events) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('begin');
    await client.query(
      `insert into events (id, stream_id, version, type, payload, metadata)
       select gen_random_uuid(), 'run-bench_history_' || (g / 10), (g % 10) + 1,
              (array['start','plan_requested','plan_generated','plan_validated','node_start',
                     'node_complete','node_start','node_complete','run_output','complete'])[(g % 10) + 1],
              jsonb_build_object('runId', 'bench_history_' || (g / 10), 'note', 'synthetic history'),
              jsonb_build_object('correlationId', 'bench_history_' || (g / 10))
       from generate_series(0, $1::int - 1) g`,
      [events],
    );
    // Their rows in the runs read model, as a projection that had applied them would have left them,
    // owned by the bench's client: a start counts its principal's working runs there.
    await client.query(
      `insert into runs (run_id, owner, owner_role, status, objective, created_at, updated_at,
                         last_position, last_event_type)
       select 'bench_history_' || g, (select owner from runs order by created_at limit 1), 'client',
              'completed', 'synthetic history', now(), now(), 0, 'complete'
       from generate_series(0, $1::int / 10 - 1) g`,
      [events],
    );
    await client.query(
      `update checkpoints set transaction_id = pg_current_xact_id(), position = (select max(position) from events)`,
    );
    await client.query('commit');
    await client.query('analyze events');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

async function run(ctx) {
  const { flex, db } = await ctx.distributed();
  await flex.useAgents('reference');
  const planSizes = [];
  const runsOf = (nodes) => (ctx.quick ? { 5: 3, 20: 2, 100: 1 } : { 5: 10, 20: 5, 100: 3 })[nodes];
  for (const size of SIZES) planSizes.push(await planSize(ctx, flex, db, size, runsOf(size.nodes)));

  await flex.useAgents('echo');
  const controlDb = await ctx.infra.createDatabase('flex_growth_control');
  ctx.log('growth: starting the control (a second Flex distributed)');
  const control = await startDistributed({ databaseUrl: controlDb.url, natsUrl: ctx.infra.natsUrl });
  try {
    await control.useAgents('echo');
    return { planSizes, startLatency: await startLatency(ctx, flex, db, control) };
  } finally {
    await control.stop();
  }
}

async function startLatency(ctx, flex, db, control) {
  const samples = ctx.quick ? 10 : 60;
  const historyEvents = ctx.quick ? 100_000 : 1_000_000;
  const urls = [flex.url, control.url];
  await startLatencies(urls, 3); // warm-up
  const storedBefore = await countEvents(db.url);
  const [empty, controlBefore] = await startLatencies(urls, samples);
  ctx.log(
    `growth: start latency with ${storedBefore} events stored: p50 ${empty.p50Ms.toFixed(1)} ms ` +
      `(control ${controlBefore.p50Ms.toFixed(1)} ms); seeding ${historyEvents}`,
  );
  const t0 = Date.now();
  await seedHistory(db.url, historyEvents);
  const seedSeconds = (Date.now() - t0) / 1000;
  await startLatencies(urls, 3); // warm-up again: the bulk insert went through the caches
  const [after, controlAfter] = await startLatencies(urls, samples);
  ctx.log(
    `growth: start latency after ${historyEvents} more: p50 ${after.p50Ms.toFixed(1)} ms ` +
      `(control ${controlAfter.p50Ms.toFixed(1)} ms)`,
  );
  return {
    where: 'Flex distributed, echo plan',
    storedBefore,
    historyEvents,
    seedSeconds,
    empty,
    after,
    control: { before: controlBefore, after: controlAfter },
    // The grown store's change, over the control's in the same moments: the load's drift cancels.
    ratio: after.p50Ms / empty.p50Ms / (controlAfter.p50Ms / controlBefore.p50Ms),
  };
}

async function countEvents(url) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('select count(*)::int as n from events')).rows[0].n;
  } finally {
    await client.end();
  }
}

module.exports = {
  name: 'growth',
  title: 'How cost grows: plan size, stored history',
  needs: ['distributed'],
  run,
};
