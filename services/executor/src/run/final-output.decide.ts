import type { PlanGraph } from '@flex/contracts';
import type { DecidedFlexEvent } from '@flex/contracts';
import type { StartedRun } from '@flex/run-model';
import { blameErrors, plain } from './blame';
import type { AdvanceOptions } from './fallback.decide';
import { composeFinalOutput } from './output-composer';
import { repairBlamed } from './repair.decide';

type PlannedRun = StartedRun & { plan: PlanGraph };

/**
 * Compose the final output and complete the run; when the output breaks the caller's schema or a
 * hard constraint, repair it instead of failing at once (DESIGN §8): every error is blamed on the
 * node that produced what it is about (a `validation_error` with scope `final_output` names it),
 * and that node is repaired (`repairBlamed`). An error no node can be blamed for fails the run as
 * before, since no repair could fix it.
 */
export function finish(state: PlannedRun, options: AdvanceOptions): DecidedFlexEvent[] {
  const composed = composeFinalOutput(state);
  if (composed.ok) {
    return [
      {
        type: 'complete',
        payload: {
          output: composed.output,
          planVersion: state.planVersion,
          satisfactionScore: state.satisfactionScore,
          observedSatisfaction: composed.observedSatisfaction,
        },
      },
    ];
  }
  const what = composed.reason === 'constraint_failed' ? 'contract constraints' : 'caller schema';
  const message = `the final output does not satisfy the ${what}: ${composed.errors[0]?.message ?? ''}`.slice(
    0,
    8_000,
  );
  const blamed = blameErrors(state, composed.errors);
  if (!blamed) {
    return [
      {
        type: 'validation_error',
        payload: { scope: 'final_output', errors: composed.errors.map(plain).slice(0, 50) },
      },
      { type: 'run_failed', payload: { code: composed.reason, reason: message } },
    ];
  }
  return repairBlamed(
    state,
    blamed,
    { scope: 'final_output', error: { code: composed.reason, message } },
    options,
  );
}
