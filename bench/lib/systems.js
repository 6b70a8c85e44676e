'use strict';
// The systems the compare section drives. `start()` gives a session; `session.use(workload)` makes
// it ready for one workload (echo: the 5-node plan; sample: the spec's sample envelope) and returns
// how to load it and which processes and database do its work; `session.stop()` ends it.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { forkChild } = require('./child');
const { closedLoop } = require('./load');
const { runFlex } = require('./flex-http');
const { echoEnvelope } = require('../agents/echo');

const ROOT = join(__dirname, '..', '..');
const SAMPLE = readFileSync(join(ROOT, 'examples/envelope.json'), 'utf8');
const BODIES = { echo: JSON.stringify(echoEnvelope()), sample: SAMPLE };

const httpLoad = (url, workload) => (concurrency, runs) =>
  closedLoop({ concurrency, runs, runOnce: () => runFlex(url, BODIES[workload]) });

/**
 * Flex embedded in its own process, PGlite on disk (as `npm start`) with the reference agents: the
 * sample envelope first, then the echo agents join in-process for the echo plan (whose envelope
 * forbids the reference capabilities; the sample envelope must not see the echo ones).
 */
async function startEmbedded() {
  const child = forkChild(join(__dirname, '../systems/flex-embedded.js'), {
    BENCH_STORE: 'disk',
    BENCH_AGENTS: 'reference',
  });
  let url;
  try {
    ({ url } = await child.call('start'));
  } catch (error) {
    await child.stop();
    throw error;
  }
  let echo = false;
  return {
    async use(workload) {
      if (workload === 'sample' && echo)
        throw new Error('embedded: the sample envelope must run before the echo agents join');
      if (workload === 'echo' && !echo) await child.call('startEcho');
      echo ||= workload === 'echo';
      return { load: httpLoad(url, workload), pids: () => [child.pid] };
    },
    stop: () => child.stop(),
  };
}

/** Flex distributed (the bench run's shared one): its agents process swapped per workload. */
function distributedStarter(ctx) {
  return async () => {
    const { flex, db } = await ctx.distributed();
    return {
      async use(workload) {
        await flex.useAgents(workload === 'echo' ? 'echo' : 'reference');
        return {
          load: httpLoad(flex.url, workload),
          pids: flex.pids,
          database: db.name,
          infraPids: () => (ctx.infra.natsPid ? [ctx.infra.natsPid] : []),
        };
      },
      stop: async () => undefined,
    };
  };
}

/** A peer library in its own process, on its own database. */
function peerStarter(infra, script, label) {
  return async () => {
    const db = await infra.createDatabase(label);
    const child = forkChild(join(__dirname, `../systems/${script}`), { BENCH_DATABASE_URL: db.url });
    let started;
    try {
      started = await child.call('start');
    } catch (error) {
      await child.stop();
      throw error;
    }
    return {
      durableRowsPerRun: started.rowsPerRun,
      use: async () => ({
        load: (concurrency, runs) => child.call('load', { concurrency, runs }),
        pids: () => [child.pid],
        database: db.name,
      }),
      stop: () => child.stop(),
    };
  };
}

/** The four systems, in the order they are measured, with their workloads in order. */
function compareSystems(ctx) {
  return [
    {
      id: 'langgraph',
      label: 'LangGraph JS + PostgresSaver (sync)',
      workloads: ['echo'],
      start: peerStarter(ctx.infra, 'langgraph.js', 'langgraph'),
    },
    {
      id: 'dbos',
      label: 'DBOS Transact (5 durable steps)',
      workloads: ['echo'],
      start: peerStarter(ctx.infra, 'dbos.js', 'dbos'),
    },
    {
      id: 'flex-embedded',
      label: 'Flex embedded (PGlite on disk)',
      workloads: ['sample', 'echo'],
      start: startEmbedded,
    },
    {
      id: 'flex-distributed',
      label: 'Flex distributed (5 services, NATS, Postgres)',
      workloads: ['echo', 'sample'],
      start: distributedStarter(ctx),
    },
  ];
}

module.exports = { compareSystems, BODIES };
