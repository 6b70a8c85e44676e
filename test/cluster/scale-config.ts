import type { Topology } from './cluster';

/**
 * The scale-out test's sizes. `npm run test:scale` runs the topology with 200 runs
 * (FLEX_SCALE=full); the default suite runs a smaller cluster and 20 runs (FLEX_SCALE unset or ci).
 * FLEX_SCALE_RUNS overrides the number of runs.
 */
export type ScaleSize = 'full' | 'ci';

const TOPOLOGIES: Record<ScaleSize, Topology> = {
  full: { gateway: 2, registry: 2, planner: 2, validator: 2, executor: 3, agents: 2 },
  ci: { gateway: 2, registry: 2, planner: 2, validator: 2, executor: 2, agents: 2 },
};
const RUNS: Record<ScaleSize, number> = { full: 200, ci: 20 };

export interface ScaleConfig {
  size: ScaleSize;
  topology: Topology;
  runs: number;
  /** Every `hitlEvery`-th run asks a human (its envelope requires HITL approval). */
  hitlEvery: number;
}

export function scaleConfig(env: NodeJS.ProcessEnv = process.env): ScaleConfig {
  const size = env.FLEX_SCALE ?? 'ci';
  if (size !== 'full' && size !== 'ci') throw new Error(`FLEX_SCALE must be full or ci, got ${size}`);
  const runs = env.FLEX_SCALE_RUNS === undefined ? RUNS[size] : Number(env.FLEX_SCALE_RUNS);
  if (!Number.isSafeInteger(runs) || runs <= 0)
    throw new Error(`FLEX_SCALE_RUNS must be a positive integer, got ${env.FLEX_SCALE_RUNS}`);
  return { size, topology: TOPOLOGIES[size], runs, hitlEvery: 4 };
}
