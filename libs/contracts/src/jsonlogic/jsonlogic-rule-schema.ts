import { JsonObjectSchema } from '../shared/json';
import { jsonLogicProblems } from './jsonlogic-rules';

/**
 * A JSONLogic rule as a zod schema: a JSON object that passes `validateJsonLogic`
 * (operator allowlist, depth and size caps, safe data paths).
 */
export const JsonLogicRuleSchema = JsonObjectSchema.superRefine((rule, ctx) => {
  for (const problem of jsonLogicProblems(rule)) {
    ctx.addIssue({
      code: 'custom',
      path: problem.path,
      message: problem.message,
      params: { code: problem.code, hint: problem.hint },
    });
  }
});
