import { zodIssuesToValidationIssues } from '@flex/contracts';
import type { z } from 'zod';
import { apiError } from './api-error';

/**
 * A route's query, checked against its contract (the schema its `@ApiDoc` documents): an unknown
 * parameter or a bad value is a 400 `invalid_query` whose message and `details.path` name the
 * parameter.
 */
export function parseQuery<S extends z.ZodObject>(schema: S, query: Record<string, unknown>): z.output<S> {
  const parsed = schema.safeParse(query, { reportInput: true });
  if (!parsed.success) throw invalidQuery(parsed.error.issues, Object.keys(schema.shape));
  return parsed.data;
}

function invalidQuery(issues: z.core.$ZodIssue[], known: readonly string[]) {
  const first = issues[0];
  const unknown = first?.code === 'unrecognized_keys' ? first.keys[0] : undefined;
  const path = unknown ?? String(first?.path[0] ?? '');
  const message = unknown
    ? `unknown query parameter ${JSON.stringify(unknown)} (known: ${known.join(', ')})`
    : `${path}: ${first?.message ?? 'invalid'}`;
  return apiError(400, 'invalid_query', message, {
    path,
    issues: zodIssuesToValidationIssues(issues).slice(0, 20),
  });
}
