export * from './run.state';
export { evolveRun } from './run.evolve';
export { upstreamOf, isStandby, readyNodes, mainPathComplete, topologicalOrder } from './plan.graph';
