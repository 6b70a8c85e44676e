import type { WhatIfMode, WhatIfRun } from './what-if';
import { WHAT_IF_CHANGE_KINDS, type WhatIfChange, type WhatIfChangeKind } from './what-if-changes';

/** How many decisions of one kind would appear, vanish or change, over every run looked at. */
export type WhatIfCounts = Record<WhatIfChange['change'], number>;

/** A what-if over several runs, in total. */
export interface WhatIfTotals {
  readonly runs: number;
  readonly unchanged: number;
  readonly changed: number;
  readonly notComparable: number;
  /** Changed runs whose divergent decision ends them differently from the record. */
  readonly outcomesChanged: number;
  /** Changed runs whose ending cannot be told from the record (see WhatIfOutcome). */
  readonly outcomesUnknown: number;
  readonly byKind: Readonly<Record<WhatIfChangeKind, WhatIfCounts>>;
}

/** The totals of a what-if over `runs`: verdicts, endings, and changed decisions by kind. */
export function whatIfTotals(runs: readonly WhatIfRun[]): WhatIfTotals {
  const byKind = Object.fromEntries(
    WHAT_IF_CHANGE_KINDS.map((k) => [k, { new: 0, vanished: 0, changed: 0 }]),
  ) as Record<WhatIfChangeKind, WhatIfCounts>;
  for (const change of runs.flatMap((r) => r.changes)) byKind[change.kind][change.change]++;
  const count = (test: (r: WhatIfRun) => boolean) => runs.filter(test).length;
  return {
    runs: runs.length,
    unchanged: count((r) => r.verdict === 'unchanged'),
    changed: count((r) => r.verdict === 'changed'),
    notComparable: count((r) => r.verdict === 'not_comparable'),
    outcomesChanged: count((r) => r.verdict === 'changed' && r.outcome.changed === true),
    outcomesUnknown: count((r) => r.verdict === 'changed' && r.outcome.changed === null),
    byKind,
  };
}

/** A what-if over several runs: the candidate policies' ids, each run's report, the totals. */
export interface WhatIfReport {
  readonly policies: readonly string[];
  /** How the candidate policies took the place of each run's own. */
  readonly mode: WhatIfMode;
  readonly runs: readonly WhatIfRun[];
  readonly totals: WhatIfTotals;
}

/** The report of `runs` (each from `whatIfRun` with `policies`). */
export function whatIfReport(
  policies: readonly { id: string }[],
  mode: WhatIfMode,
  runs: readonly WhatIfRun[],
): WhatIfReport {
  return { policies: policies.map((p) => p.id), mode, runs, totals: whatIfTotals(runs) };
}
