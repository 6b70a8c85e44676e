/** Injection token for whatever keeps the read models current in this process. */
export const PROJECTIONS = Symbol.for('flex.projections');

export interface ProjectionCatchUp {
  catchUp(): Promise<unknown>;
}
