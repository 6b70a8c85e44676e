'use strict';
// LangGraph JS with PostgresSaver, durability 'sync' (each step's checkpoint committed before the
// next step starts): five trivial nodes answering the echo agents' values, in the echo plan's shape
// (echo1 → echo2 → echo3 → {echo4, echo5}). One thread per run. Driven by the bench over IPC.
const { randomUUID } = require('node:crypto');
const { StateGraph, Annotation, START, END } = require('@langchain/langgraph');
const { PostgresSaver } = require('@langchain/langgraph-checkpoint-postgres');
const pg = require('pg');
const { VALUES } = require('../agents/echo');
const { serveParent } = require('../lib/child');
const { closedLoop } = require('../lib/load');

const last = () => Annotation({ reducer: (_, next) => next, default: () => undefined });
const State = Annotation.Root({
  objective: last(),
  writerBrief: last(),
  planKnobs: last(),
  copyVariants: last(),
  qaFindings: last(),
  recommendationSet: last(),
});

let pool;
let graph;

async function start() {
  pool = new pg.Pool({ connectionString: process.env.BENCH_DATABASE_URL, max: 10 });
  pool.on('error', () => undefined);
  const checkpointer = new PostgresSaver(pool);
  await checkpointer.setup();
  graph = new StateGraph(State)
    .addNode('echo1', async () => ({ writerBrief: VALUES.writerBrief }))
    .addNode('echo2', async () => ({ planKnobs: VALUES.planKnobs }))
    .addNode('echo3', async () => ({ copyVariants: VALUES.copyVariants }))
    .addNode('echo4', async () => ({ qaFindings: VALUES.qaFindings }))
    .addNode('echo5', async () => ({ recommendationSet: VALUES.recommendationSet }))
    .addEdge(START, 'echo1')
    .addEdge('echo1', 'echo2')
    .addEdge('echo2', 'echo3')
    .addEdge('echo3', 'echo4')
    .addEdge('echo3', 'echo5')
    .addEdge('echo4', END)
    .addEdge('echo5', END)
    .compile({ checkpointer });
  // One run before anything is timed; what it stored shows the durability is real.
  const before = await rowCounts();
  await runOnce();
  const after = await rowCounts();
  const rowsPerRun = Object.fromEntries(Object.keys(after).map((t) => [t, after[t] - before[t]]));
  if (!(rowsPerRun.checkpoints >= 5)) throw new Error(`a run stored ${rowsPerRun.checkpoints} checkpoints`);
  return { pid: process.pid, rowsPerRun };
}

async function rowCounts() {
  const counts = {};
  for (const table of ['checkpoints', 'checkpoint_blobs', 'checkpoint_writes'])
    counts[table] = Number((await pool.query(`select count(*) as n from ${table}`)).rows[0].n);
  return counts;
}

async function runOnce() {
  const out = await graph.invoke(
    { objective: 'Bench: five trivial echo nodes' },
    { configurable: { thread_id: randomUUID() }, durability: 'sync' },
  );
  if (!out.qaFindings || !out.recommendationSet) throw new Error('graph ended without its outputs');
}

serveParent({
  start,
  load: ({ concurrency, runs }) => closedLoop({ concurrency, runs, runOnce }),
  stop: async () => {
    await pool?.end();
  },
});
