'use strict';
// What the store section (sections/store.js), bench/append-ab.js and bench/rebuild-ab.js share: a
// recorded run's events under fresh run ids, the raw side's rows of them inserted 100 per statement,
// the raw read of the log, and rebuilds alternated with it.
const { randomUUID } = require('node:crypto');

/** The template's events for a new run: every mention of the old run id replaced, fresh event ids. */
function eventsFor(template, runId) {
  const swap = (text) => JSON.parse(text.split(template.runId).join(runId));
  return template.events.map((e) => ({
    id: randomUUID(),
    type: e.type,
    payload: swap(e.payload),
    metadata: swap(e.metadata),
  }));
}

/** `rows` rows for raw_events (id, stream, version, type, payload, metadata), runs of the template. */
function rawRows(template, rows, label) {
  const all = [];
  for (let run = 0; all.length < rows; run++) {
    const runId = `run_${label}_${run}`;
    for (const [i, e] of eventsFor(template, runId).entries())
      all.push([e.id, `run-${runId}`, i + 1, e.type, JSON.stringify(e.payload), JSON.stringify(e.metadata)]);
  }
  all.length = rows;
  return all;
}

/** Inserts `all` into raw_events, 100 rows per statement, on one connection; returns statements and seconds. */
async function insertRaw(client, all) {
  const t0 = performance.now();
  let batches = 0;
  for (let at = 0; at < all.length; at += 100) {
    const batch = all.slice(at, at + 100);
    const values = batch.map(
      (_, i) =>
        `($${6 * i + 1}, $${6 * i + 2}, $${6 * i + 3}, $${6 * i + 4}, $${6 * i + 5}::jsonb, $${6 * i + 6}::jsonb)`,
    );
    await client.query(
      `insert into raw_events (id, stream_id, version, type, payload, metadata) values ${values.join(', ')}`,
      batch.flat(),
    );
    batches++;
  }
  return { batches, seconds: (performance.now() - t0) / 1000 };
}

/** The log read once in pages of 500 by position, with plain pg: rows and seconds. */
async function rawRead(client) {
  const t0 = performance.now();
  let rows = 0;
  for (let after = 0; ;) {
    const page = await client.query(
      'select position, id, stream_id, version, type, payload, metadata, recorded_at from events ' +
        'where position > $1 order by position limit 500',
      [after],
    );
    if (page.rows.length === 0) break;
    rows += page.rows.length;
    after = page.rows[page.rows.length - 1].position;
  }
  return { rows, seconds: (performance.now() - t0) / 1000 };
}

/**
 * `count` rebuilds of the runs model alternated with raw reads: the read goes first on even passes and
 * second on odd ones, so neither always runs warmer. `last` wraps the last rebuild (a profiler, say).
 * Returns each rebuild's events and seconds, each read's rows and seconds, and each pair's ratio.
 */
async function rebuildPasses(runner, client, count, last = (rebuild) => rebuild()) {
  const rebuilds = [];
  const reads = [];
  for (let k = 0; k < count; k++) {
    const read = async () => reads.push(await rawRead(client));
    const timed = async () => {
      const t0 = performance.now();
      const events = await runner.rebuild('runs');
      rebuilds.push({ events, seconds: (performance.now() - t0) / 1000 });
    };
    const rebuild = () => (k === count - 1 ? last(timed) : timed());
    if (k % 2 === 0) await read().then(rebuild);
    else await rebuild().then(read);
  }
  const rate = (r) => (r.events ?? r.rows) / r.seconds;
  return { rebuilds, reads, ratios: rebuilds.map((r, k) => rate(r) / rate(reads[k])) };
}

module.exports = { eventsFor, rawRows, insertRaw, rawRead, rebuildPasses };
