export { batchAt, groupBatches, type Batch } from './batches';
export { firstDifference, IdMap, type DecidedEvent, type Difference } from './compare';
export {
  replayAdapters,
  takenFromRecord,
  type Redecision,
  type ReplayAdapter,
  type ReplayAdapters,
  type ReplayStep,
} from './adapter';
export {
  verifyReplay,
  type Divergence,
  type DivergentDecision,
  type ReplayReport,
  type VerifyOptions,
} from './verify-replay';
export { ExportFileError, parseExportFile } from './export-file';
export {
  startedBefore,
  whatIfRun,
  withPolicies,
  type WhatIfDivergence,
  type WhatIfOutcome,
  type WhatIfMode,
  type WhatIfRun,
} from './what-if';
export {
  decisionChanges,
  WHAT_IF_CHANGE_KINDS,
  type WhatIfChange,
  type WhatIfChangeKind,
} from './what-if-changes';
export {
  whatIfReport,
  whatIfTotals,
  type WhatIfCounts,
  type WhatIfReport,
  type WhatIfTotals,
} from './what-if-totals';
