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
export { verifyReplay, type Divergence, type ReplayReport } from './verify-replay';
export { ExportFileError, parseExportFile } from './export-file';
