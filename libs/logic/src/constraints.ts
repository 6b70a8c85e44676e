import type { ConstraintSpec } from '@flex/contracts';
import { evaluateRule, truthy } from './safe-json-logic';

export const CONSTRAINT_WEIGHTS = { hard: 1.0, soft: 0.5 } as const;

export interface ConstraintOutcome {
  constraintId: string;
  level: ConstraintSpec['level'];
  holds: boolean;
  /** Set when the rule could not be evaluated: it counts as not holding (fail closed). */
  error?: string;
}

export interface ConstraintEvaluation {
  results: ConstraintOutcome[];
  /** Σ w_i s_i / Σ w_i over hard (1.0) and soft (0.5) constraints; 1 when there are none (spec 000 §5.9.3). */
  observedSatisfaction: number;
  hardFailures: ConstraintOutcome[];
}

/** The id a constraint is known by: its own, else its position (`constraint_<i>`). */
export const constraintIdOf = (c: ConstraintSpec, index: number) => c.constraintId ?? `constraint_${index}`;

/** Evaluate every constraint of the output contract on a final output. */
export function evaluateConstraints(
  output: unknown,
  constraints: readonly ConstraintSpec[],
): ConstraintEvaluation {
  const results = constraints.map((c, index): ConstraintOutcome => {
    const evaluated = evaluateRule(c.expr, output);
    const base = { constraintId: constraintIdOf(c, index), level: c.level };
    return evaluated.ok
      ? { ...base, holds: truthy(evaluated.value) }
      : { ...base, holds: false, error: evaluated.error };
  });
  let total = 0;
  let met = 0;
  for (const r of results) {
    if (r.level === 'informational') continue;
    total += CONSTRAINT_WEIGHTS[r.level];
    if (r.holds) met += CONSTRAINT_WEIGHTS[r.level];
  }
  return {
    results,
    observedSatisfaction: total === 0 ? 1 : Math.round((met / total) * 1e6) / 1e6,
    hardFailures: results.filter((r) => r.level === 'hard' && !r.holds),
  };
}
