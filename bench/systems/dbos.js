'use strict';
// DBOS Transact: a workflow of five durable steps answering the echo agents' values, in the echo
// plan's shape (steps 1-3 in turn, then 4 and 5 together), its system database in Postgres. Each
// workflow and step outcome is committed there before the workflow goes on. Driven over IPC.
const { DBOS } = require('@dbos-inc/dbos-sdk');
const { Client } = require('pg');
const { VALUES } = require('../agents/echo');
const { serveParent } = require('../lib/child');
const { closedLoop } = require('../lib/load');

const step = (name, value) => DBOS.runStep(async () => value, { name });

async function echoWorkflow(objective) {
  await step('echo1', VALUES.writerBrief);
  await step('echo2', VALUES.planKnobs);
  await step('echo3', VALUES.copyVariants);
  const [qaFindings, recommendationSet] = await Promise.all([
    step('echo4', VALUES.qaFindings),
    step('echo5', VALUES.recommendationSet),
  ]);
  return { objective, qaFindings, recommendationSet };
}
const workflow = DBOS.registerWorkflow(echoWorkflow, { name: 'echoWorkflow' });

async function runOnce() {
  const out = await workflow('Bench: five durable steps');
  if (!out.qaFindings || !out.recommendationSet) throw new Error('workflow ended without its outputs');
}

async function rowCounts() {
  const client = new Client({ connectionString: process.env.BENCH_DATABASE_URL });
  await client.connect();
  try {
    const counts = {};
    for (const table of ['dbos.workflow_status', 'dbos.operation_outputs'])
      counts[table] = Number((await client.query(`select count(*) as n from ${table}`)).rows[0].n);
    return counts;
  } finally {
    await client.end();
  }
}

serveParent({
  async start() {
    DBOS.setConfig({
      name: 'flex-bench',
      systemDatabaseUrl: process.env.BENCH_DATABASE_URL,
      systemDatabasePoolSize: 10,
      logLevel: 'error',
    });
    await DBOS.launch();
    // One run before anything is timed; what it stored shows the durability is real.
    const before = await rowCounts();
    await runOnce();
    const after = await rowCounts();
    const rowsPerRun = Object.fromEntries(Object.keys(after).map((t) => [t, after[t] - before[t]]));
    if (!(rowsPerRun['dbos.operation_outputs'] >= 5))
      throw new Error(`a workflow stored ${rowsPerRun['dbos.operation_outputs']} step outputs`);
    return { pid: process.pid, rowsPerRun };
  },
  load: ({ concurrency, runs }) => closedLoop({ concurrency, runs, runOnce }),
  stop: () => DBOS.shutdown(),
});
