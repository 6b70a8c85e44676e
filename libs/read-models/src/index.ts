export { readModelMigrations } from './read-models.migrations';
export { createRunsProjection, type RunsProjectionOptions } from './runs.projection';
export { capabilitiesProjection } from './capabilities.projection';
export {
  listRuns,
  countWorkingRuns,
  getRunDetail,
  listCapabilityInstances,
  type RunSummary,
  type RunDetail,
  type PlanVersionView,
  type CapabilityRow,
} from './queries';
export type { ReadModelDatabase } from './read-models.table';

export { projectionsFor } from './projections.host';
