import type { WhatIfChange, WhatIfReport, WhatIfRun } from '@flex/replay';

/** The human report of `flex policy what-if`: one block per run, then the totals and what was compared. */
export function describeWhatIf(report: WhatIfReport): string[] {
  const { totals: t } = report;
  const lines = [
    `policy what-if: ${report.policies.length} candidate policies (${report.policies.join(', ') || 'none'}) over ${t.runs} runs${report.mode === 'merge' ? ', merged with each run’s own' : ''}`,
    ...report.runs.flatMap(runLines),
    `totals: ${t.changed} changed, ${t.unchanged} unchanged, ${t.notComparable} not comparable; ` +
      `endings changed ${t.outcomesChanged}, unknown ${t.outcomesUnknown}`,
  ];
  for (const [kind, c] of Object.entries(t.byKind))
    if (c.new + c.vanished + c.changed > 0)
      lines.push(`  ${kind.padEnd(8)} new ${c.new}, vanished ${c.vanished}, changed ${c.changed}`);
  lines.push(
    'compared: each run up to its first divergence; the agents’ outputs and humans’ decisions recorded',
    'after it answered a run that would no longer exist, so nothing after it is compared (docs/AUDIT.md)',
  );
  return lines;
}

function runLines(run: WhatIfRun): string[] {
  const head = `${run.runId}  ${run.verdict}`;
  const d = run.divergence;
  if (run.verdict === 'unchanged')
    return [`${head} (${run.compared} events, ending ${run.outcome.recorded})`];
  const at = d ? `at position ${d.position ?? '(after the record)'} (version ${d.version}, ${d.type})` : '';
  if (run.verdict === 'not_comparable')
    return [
      `${head}: re-decided with its own policies it already differs ${at}; flex replay --verify names it`,
    ];
  const ending = `ending ${run.outcome.recorded} → ${run.outcome.whatIf}`;
  return [
    `${head} ${at}, decided by ${d?.component}; ${ending}`,
    ...run.changes.map((c) => `    ${changeLine(c)}`),
  ];
}

const SIGN = { new: '+', vanished: '-', changed: '~' } as const;

function changeLine(c: WhatIfChange): string {
  const who = [c.policyId && `policy ${c.policyId}`, c.nodeId && `node ${c.nodeId}`]
    .filter(Boolean)
    .join(', ');
  return `${SIGN[c.change]} ${c.kind.padEnd(7)} ${c.detail}${who ? ` (${who})` : ''}`;
}
