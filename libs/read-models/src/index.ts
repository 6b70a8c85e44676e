export { readModelMigrations } from './read-models.migrations';
export { runsProjection } from './runs.projection';
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

import { capabilitiesProjection } from './capabilities.projection';
import { runsProjection } from './runs.projection';

/** Every projection, in the order a rebuild runs them. */
export const allProjections = [runsProjection, capabilitiesProjection];
export { projectionsFor } from './projections.host';
