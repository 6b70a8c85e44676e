export { readModelMigrations } from './read-models.migrations';
export { createRunsProjection, type RunsProjectionOptions } from './runs.projection';
export { capabilitiesProjection } from './capabilities.projection';
export { countWorkingRuns, listCapabilityInstances, workingRunsAtMost, type CapabilityRow } from './queries';
export { listRuns, type RunCursor, type RunFilter, type RunPage } from './run-list.query';
export { getRunDetail } from './run-detail.query';
export { getRunDetailAt } from './run-detail-at.query';
export type { ReadModelDatabase } from './read-models.table';

export { projectionsFor } from './projections.host';
export { runArchiveHooks, restoreArchivedRuns } from './archived-runs';
