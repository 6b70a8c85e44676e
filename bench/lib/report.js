'use strict';
// The bench's one table, the bar of issue 13, and the generated part of docs/BENCHMARKS.md.
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const DOCS = join(__dirname, '..', '..', 'docs', 'BENCHMARKS.md');
const START = '<!-- bench:generated:start (written by `npm run bench`; edit above this line) -->';
const END = '<!-- bench:generated:end -->';

const f = (v, digits) => {
  if (v === undefined || v === null || Number.isNaN(v)) return '–';
  if (digits !== undefined) return v.toFixed(digits);
  const a = Math.abs(v);
  return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : a >= 1 ? v.toFixed(2) : v.toFixed(3);
};
const x = (v) => (v === undefined || !Number.isFinite(v) ? '–' : `${f(v)}×`);
const WORKLOAD = { echo: '5-node echo plan', sample: 'sample envelope' };
const atOnce = (c) => (c === 1 ? 'sequential' : `${c} at once`);
const SHORT_NAME = {
  langgraph: 'LangGraph',
  dbos: 'DBOS',
  'flex-embedded': 'Flex embedded',
  'flex-distributed': 'Flex distributed',
};

function compareRow(results, system, workload, concurrency) {
  return results.sections.compare?.rows?.find(
    (r) => r.system === system && r.workload === workload && r.concurrency === concurrency,
  );
}

function check(text, ok, detail) {
  if (ok === undefined) return { text, status: 'n/a', detail: 'not measured in this run' };
  return { text, status: ok ? 'PASS' : 'SHORT', detail };
}

/** The bar of issue 13, line by line: PASS, SHORT, or n/a when its section was not run (or failed). */
function evaluateBar(results) {
  const lines = [];
  const lg = compareRow(results, 'langgraph', 'echo', 20);
  const dbos = compareRow(results, 'dbos', 'echo', 20);
  for (const id of ['flex-distributed', 'flex-embedded']) {
    const name = SHORT_NAME[id];
    const at20 = compareRow(results, id, 'echo', 20);
    const seq = compareRow(results, id, 'echo', 1);
    const rate = (r) => (r ? `${f(r.runsPerSec)} runs/s` : '–');
    lines.push(
      check(
        `${name} ≥ 3× LangGraph + PostgresSaver, 5-node plan, 20 at once`,
        at20 && lg ? at20.runsPerSec >= 3 * lg.runsPerSec : undefined,
        `${rate(at20)} vs ${rate(lg)} (${x(at20 && lg && at20.runsPerSec / lg.runsPerSec)})`,
      ),
      check(
        `${name} ≥ DBOS, 5-node plan, 20 at once`,
        at20 && dbos ? at20.runsPerSec >= dbos.runsPerSec : undefined,
        `${rate(at20)} vs ${rate(dbos)} (${x(at20 && dbos && at20.runsPerSec / dbos.runsPerSec)})`,
      ),
      check(
        `${name}: 20 at once ≥ 1.5× sequential throughput`,
        at20 && seq ? at20.runsPerSec >= 1.5 * seq.runsPerSec : undefined,
        `${rate(at20)} vs ${rate(seq)} sequential (${x(at20 && seq && at20.runsPerSec / seq.runsPerSec)})`,
      ),
    );
  }
  const sample = compareRow(results, 'flex-embedded', 'sample', 1);
  lines.push(
    check(
      'Sample envelope p50 embedded < 50 ms (sequential)',
      sample ? sample.p50Ms < 50 : undefined,
      sample ? `p50 ${f(sample.p50Ms)} ms` : '–',
    ),
  );
  const store = results.sections.store;
  lines.push(
    check(
      'Append rate ≥ 50 % of a raw 100-row batch insert',
      store?.ratios ? store.ratios.append >= 0.5 : undefined,
      store?.ratios
        ? `${f(store.append.eventsPerSec)} vs ${f(store.raw.rowsPerSec)} rows/s (${f(100 * store.ratios.append, 0)} %)`
        : '–',
    ),
    check(
      'Projection rebuild ≥ 50 % of a raw sequential read',
      store?.ratios ? store.ratios.rebuild >= 0.5 : undefined,
      store?.ratios
        ? `${f(store.rebuild.eventsPerSec)} vs ${f(store.rawRead.rowsPerSec)} rows/s (${f(100 * store.ratios.rebuild, 0)} %${store.ranges ? ', median of paired passes' : ''})`
        : '–',
    ),
  );
  const start = results.sections.growth?.startLatency;
  const history = start
    ? `${(start.historyEvents / 1e6).toFixed(start.historyEvents >= 1e6 ? 0 : 1)}M`
    : '1M';
  lines.push(
    check(
      `Start latency after ${history} stored events within 10 % of an empty store's`,
      start ? start.ratio <= 1.1 : undefined,
      start
        ? `p50 ${f(start.after.p50Ms)} ms vs ${f(start.empty.p50Ms)} ms with ${start.storedBefore} events stored ` +
            `(${x(start.ratio)}, over a control's ${f(start.control.after.p50Ms)} vs ${f(start.control.before.p50Ms)} ms in the same moments)`
        : '–',
    ),
  );
  if (start && start.historyEvents < 1e6)
    lines[lines.length - 1].detail += ' — quick mode: fewer than the 1M events the bar names';
  return lines;
}

/** CPU ms per run by where it was spent; an embedded Flex's database (PGlite) is inside its process. */
function cpuParts(r, named = false) {
  const parts = [[named ? 'app ' : '', r.cpuMsPerRunApp]];
  if (r.cpuMsPerRunDb !== undefined) parts.push([named ? 'db ' : '', r.cpuMsPerRunDb]);
  if (r.cpuMsPerRunInfra) parts.push([named ? 'nats ' : '', r.cpuMsPerRunInfra]);
  return parts.map(([name, v]) => `${name}${f(v)}`);
}

function compareRows(results) {
  const c = results.sections.compare;
  if (!c?.rows) return [];
  const failed = (c.failures ?? []).map((failure) => ({
    section: 'compare',
    measurement: `${failure.label}: ${WORKLOAD[failure.workload]}`,
    result: 'FAILED',
    detail: failure.error.slice(0, 300),
  }));
  const measured = c.rows.map((r) => {
    const vs = (c.ratios ?? []).filter((q) => q.system === r.system && q.concurrency === r.concurrency);
    const ratioText =
      r.workload === 'echo' && vs.length
        ? `; ${vs.map((q) => `${x(q.runsPerSec)} ${SHORT_NAME[q.peer]}`).join(', ')}`
        : '';
    const cpu = `CPU ${f(r.cpuMsPerRun)} ms/run (${cpuParts(r, true).join(', ')})`;
    return {
      section: 'compare',
      measurement: `${r.label}: ${WORKLOAD[r.workload]}, ${atOnce(r.concurrency)}`,
      result: `${f(r.runsPerSec)} runs/s`,
      detail:
        `p50 ${f(r.p50Ms)} ms, p99 ${f(r.p99Ms)} ms, ${cpu}, RSS ${f(r.peakRssMB, 0)} MB${ratioText}` +
        (r.errors ? `; ${r.errors} FAILED: ${r.firstError}` : ''),
    };
  });
  return [...measured, ...failed];
}

function growthRows(results) {
  const g = results.sections.growth;
  if (!g || g.error) return [];
  const rows = (g.planSizes ?? []).map((p) => ({
    section: 'growth',
    measurement: `Plan of ${p.nodes} nodes (${p.variants} variants, ${p.agentCalls} agent calls), distributed`,
    result: `${f(p.p50Ms)} ms/run`,
    detail: `CPU ${f(p.cpuMsPerRun)} ms/run, ${f(p.msPerNode)} ms/node, ${f(p.eventsPerRun, 0)} SSE events/run, n=${p.runs}`,
  }));
  const s = g.startLatency;
  if (s) {
    for (const [latency, label] of [
      [s.empty, `${s.storedBefore.toLocaleString('en')} events stored`],
      [s.after, `after ${s.historyEvents.toLocaleString('en')} more`],
      [s.control.before, 'control (a second Flex, its store not grown), beside the first'],
      [s.control.after, 'control, beside the second'],
    ])
      rows.push({
        section: 'growth',
        measurement: `Start latency (POST run.stream → start event), ${label}`,
        result: `p50 ${f(latency.p50Ms)} ms`,
        detail: `p99 ${f(latency.p99Ms)} ms, whole run p50 ${f(latency.runP50Ms)} ms, n=${latency.samples} (${s.where})`,
      });
  }
  return rows;
}

function storeRows(results) {
  const s = results.sections.store;
  if (!s || s.error) return [];
  const pct = (v) => `${f(100 * v, 0)} % of raw`;
  // Sections since round 7 alternate each side with its raw limit and say how often.
  const range = ([lo, hi], scale = 1) => `${f(scale * lo, 0)}-${f(scale * hi, 0)}`;
  const chunks = s.ranges
    ? ` (${s.chunks} alternations with the raw insert, per chunk ${range(s.ranges.appendPerChunk, 100)} %)`
    : '';
  const passes = (what, r) =>
    r.range ? `median of ${r.passes} passes (${range(r.range)} ${what}/s)` : `best of ${r.passes} passes`;
  return [
    {
      section: 'store',
      measurement: `store.append, ${s.writers} runs at once (as distributed: outbox on)`,
      result: `${f(s.append.eventsPerSec)} events/s`,
      detail: `${pct(s.ratios.append)}${chunks}; ${s.append.events} events, p50 ${f(s.append.p50Ms)} ms/append, CPU ${f(s.append.cpuUsPerEvent)} µs/event`,
    },
    {
      section: 'store',
      measurement: `store.append, ${s.writers} runs at once (outbox off, as embedded)`,
      result: `${f(s.appendPlain.eventsPerSec)} events/s`,
      detail: `${pct(s.ratios.appendPlain)}; p50 ${f(s.appendPlain.p50Ms)} ms/append, CPU ${f(s.appendPlain.cpuUsPerEvent)} µs/event`,
    },
    {
      section: 'store',
      measurement: 'Raw 100-row multi-row INSERT (pg, one connection)',
      result: `${f(s.raw.rowsPerSec)} rows/s`,
      detail: `${s.raw.rows} rows in ${s.raw.batches} statements, same columns, indexes and payloads`,
    },
    {
      section: 'store',
      measurement: 'Projection rebuild (runs read model)',
      result: `${f(s.rebuild.eventsPerSec)} events/s`,
      detail:
        `${pct(s.ratios.rebuild)} read` +
        (s.ranges
          ? ` (median of ${s.rebuild.passes} alternations, ${range(s.ranges.rebuildPerPass, 100)} %)`
          : '') +
        `; ${s.rebuild.events} events in ${f(s.rebuild.seconds)} s` +
        (s.ranges ? `, ${passes('events', s.rebuild)}` : ''),
    },
    {
      section: 'store',
      measurement: 'Raw sequential read (pg, pages of 500 by position)',
      result: `${f(s.rawRead.rowsPerSec)} rows/s`,
      detail: `${s.rawRead.rows} rows, ${passes('rows', s.rawRead)}`,
    },
  ];
}

function sseRows(results) {
  const s = results.sections.sse;
  if (!s || s.error) return [];
  return [
    {
      section: 'sse',
      measurement: `SSE fan-out: ${s.clients} clients on one gateway, ${s.runs} runs`,
      result: `p50 ${f(s.p50Ms)} ms`,
      detail:
        `p99 ${f(s.p99Ms)} ms, max ${f(s.maxMs)} ms over ${s.frames} frames; gateway RSS ${f(s.gatewayRssMB.before, 0)} → ` +
        `${f(s.gatewayRssMB.attached, 0)} MB attached, peak ${f(s.gatewayRssMB.peak, 0)} MB; CPU gateway ${f(s.gatewayCpuSeconds)} s, readers ${f(s.clientCpuSeconds)} s`,
    },
  ];
}

function proofRows(results) {
  const rows = [];
  for (const r of results.sections.proof?.rows ?? [])
    rows.push({
      section: 'proof',
      measurement: `Plan proof (bind + prove), ${r.nodes} nodes`,
      result: `${f(r.medianMs)} ms`,
      detail: `p90 ${f(r.p90Ms)} ms, n=${r.n}, ${r.status}`,
    });
  for (const r of results.sections.planner?.rows ?? [])
    rows.push({
      section: 'planner',
      measurement: `Rule-based planning over ${r.capabilities.toLocaleString('en')} capabilities`,
      result: `${f(r.medianMs)} ms`,
      detail: `p90 ${f(r.p90Ms)} ms, n=${r.n}, ${r.nodes}-node plan`,
    });
  return rows;
}

function telemetryRows(results) {
  const s = results.sections.telemetry;
  if (!s || s.error) return [];
  return s.ratios.map((r) => {
    const off = s.rows.find((x) => x.mode === 'off' && x.concurrency === r.concurrency);
    const on = s.rows.find((x) => x.mode === 'on' && x.concurrency === r.concurrency);
    return {
      section: 'telemetry',
      measurement: `Tracing on / off, embedded, sample envelope, ${r.concurrency} at once`,
      result: `${f(r.runsPerSec, 2)}× runs/s`,
      detail:
        `off ${f(off.runsPerSec)} runs/s p50 ${f(off.p50Ms, 0)} ms, on ${f(on.runsPerSec)} runs/s p50 ${f(on.p50Ms, 0)} ms ` +
        `(~${f(on.spansPerRun, 0)} spans/run exported); medians of ${off.reps} interleaved reps` +
        (off.errors + on.errors ? `; ${off.errors + on.errors} runs failed` : ''),
    };
  });
}

/** The one table: every figure, then the bar. */
function tableRows(results) {
  const rows = [
    ...compareRows(results),
    ...sseRows(results),
    ...growthRows(results),
    ...storeRows(results),
    ...proofRows(results),
    ...telemetryRows(results),
  ];
  for (const [name, section] of Object.entries(results.sections))
    if (section?.error)
      rows.push({ section: name, measurement: 'FAILED', result: '–', detail: section.error.slice(0, 300) });
  for (const b of results.bar ?? [])
    rows.push({ section: 'bar', measurement: b.text, result: b.status, detail: b.detail });
  return rows;
}

function renderTable(rows) {
  const cols = ['section', 'measurement', 'result', 'detail'];
  const width = Object.fromEntries(
    cols.map((c) => [c, Math.max(c.length, ...rows.map((r) => String(r[c]).length))]),
  );
  width.detail = Math.min(width.detail, 160);
  const line = (r) =>
    cols
      .map((c) => String(r[c]).padEnd(width[c]))
      .join(' | ')
      .trimEnd();
  const rule = cols.map((c) => '-'.repeat(width[c])).join('-|-');
  const out = [line(Object.fromEntries(cols.map((c) => [c, c]))), rule];
  let previous;
  for (const r of rows) {
    if (previous && previous !== r.section) out.push(rule);
    out.push(line(r));
    previous = r.section;
  }
  return out.join('\n');
}

const md = (s) => String(s).replace(/\|/g, '\\|');

function machineMarkdown(m) {
  if (!m) return '';
  const rows = [
    ['Date', m.date],
    ['CPU', `${m.cpu}, ${m.cores} cores`],
    ['RAM', `${m.ramGiB} GiB`],
    ['Kernel', m.kernel],
    ['Load average at start', m.loadAverageAtStart.join(', ')],
    ['Node', m.node],
    [
      'Postgres',
      `${m.postgres.version} (${m.postgres.source}; fsync ${m.postgres.fsync}, synchronous_commit ${m.postgres.synchronousCommit}, full_page_writes ${m.postgres.fullPageWrites}, shared_buffers ${m.postgres.sharedBuffers})`,
    ],
    ['NATS', `${m.nats.version} (${m.nats.source})`],
    [
      'Peers',
      Object.entries(m.peers)
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
    ],
    ['Flex commit', m.commit],
  ];
  return ['| | |', '| --- | --- |', ...rows.map(([k, v]) => `| ${k} | ${md(v)} |`)].join('\n');
}

function compareMarkdown(results) {
  const c = results.sections.compare;
  if (!c?.rows) return '';
  const head =
    '| system | workload | at once | runs/s | p50 ms | p99 ms | CPU ms/run (app + db + nats) | peak RSS MB | Flex ÷ LangGraph | Flex ÷ DBOS |';
  const lines = [head, '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |'];
  for (const r of c.rows) {
    const ratio = (peer) => {
      const q = (c.ratios ?? []).find(
        (y) =>
          r.workload === 'echo' &&
          y.system === r.system &&
          y.peer === peer &&
          y.concurrency === r.concurrency,
      );
      return q ? x(q.runsPerSec) : '';
    };
    const cpu = `${f(r.cpuMsPerRun)} (${cpuParts(r).join(' + ')})`;
    lines.push(
      `| ${r.label} | ${WORKLOAD[r.workload]} | ${r.concurrency} | ${f(r.runsPerSec)} | ${f(r.p50Ms)} | ${f(r.p99Ms)} | ${cpu} | ${f(r.peakRssMB, 0)} | ${ratio('langgraph')} | ${ratio('dbos')} |`,
    );
  }
  return lines.join('\n');
}

/** What each system commits per run of the 5-node plan: the durability the figures pay for. */
function durableNote(results) {
  const durable = results.sections.compare?.durableRowsPerRun ?? {};
  const list = (rows) =>
    Object.entries(rows)
      .map(([table, n]) => `${n} ${table}`)
      .join(', ');
  const parts = Object.entries(durable).map(([id, rows]) => `${SHORT_NAME[id]}: ${list(rows)}`);
  const flex = results.sections.store?.eventsPerRun;
  if (flex) parts.push(`Flex: ${flex} events in the run's stream (from the store section)`);
  return parts.length ? `Rows committed per run of the 5-node plan: ${parts.join('; ')}.` : '';
}

function generatedMarkdown(results, rows) {
  const mode =
    results.mode === 'quick'
      ? 'quick (`npm run bench -- --quick`: small counts, one repetition)'
      : 'full (`npm run bench`)';
  const parts = [
    START,
    '',
    '## Latest run',
    '',
    `Mode: ${mode}. Sections: ${Object.keys(results.sections).join(', ')}. Took ${f(results.totalSeconds, 0)} s.`,
    '',
    machineMarkdown(results.machine),
    '',
    '### The bar (issue 13)',
    '',
    '| | status | figures |',
    '| --- | --- | --- |',
    ...(results.bar ?? []).map((b) => `| ${md(b.text)} | ${b.status} | ${md(b.detail)} |`),
  ];
  const compare = compareMarkdown(results);
  if (compare) parts.push('', '### Side by side', '', compare, '', durableNote(results));
  parts.push(
    '',
    '### Every figure',
    '',
    '| section | measurement | result | detail |',
    '| --- | --- | --- | --- |',
    ...rows
      .filter((r) => r.section !== 'bar')
      .map((r) => `| ${r.section} | ${md(r.measurement)} | ${md(r.result)} | ${md(r.detail)} |`),
    '',
    END,
    '',
  );
  return parts.join('\n');
}

const HAND_WRITTEN = `# Benchmarks

Hand-written notes (profiles, what each optimization bought) go here, above the generated part;
\`npm run bench\` rewrites only what lies between the bench:generated markers.

`;

/** Rewrites the generated part of docs/BENCHMARKS.md, keeping everything outside the markers. */
function writeDocs(results, rows, path = DOCS) {
  const generated = generatedMarkdown(results, rows);
  const current = existsSync(path) ? readFileSync(path, 'utf8') : HAND_WRITTEN;
  const start = current.indexOf(START.slice(0, 30));
  const end = current.indexOf(END);
  const next =
    start >= 0 && end > start
      ? current.slice(0, start) + generated.trimEnd() + current.slice(end + END.length)
      : `${current.trimEnd()}\n\n${generated}`;
  writeFileSync(path, next.endsWith('\n') ? next : `${next}\n`);
  return path;
}

module.exports = { evaluateBar, tableRows, renderTable, writeDocs, generatedMarkdown };
