import type { z } from 'zod';
import { formatIssuePath } from '../shared/issue-path';
import type { ValidationIssue } from './validation-issue';

type Params = { code?: string; hint?: string } | undefined;

/**
 * Turns zod issues into caller-facing {@link ValidationIssue}s under `prefix`: one issue per
 * unknown key (`unknown_field`, with the key's own path), `required` for a missing field, and
 * custom refinement codes carried in `params.code`.
 */
export function zodIssuesToValidationIssues(
  issues: readonly z.core.$ZodIssue[],
  prefix: PropertyKey[] = [],
): ValidationIssue[] {
  return issues.flatMap((issue) => convert(issue, [...prefix, ...issue.path]));
}

function convert(issue: z.core.$ZodIssue, path: PropertyKey[]): ValidationIssue[] {
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        path: formatIssuePath([...path, key]),
        code: 'unknown_field',
        message: `unknown field "${key}"`,
        hint: 'remove it; only documented fields are accepted',
      }));
    case 'invalid_type':
      return 'input' in issue && issue.input !== undefined
        ? [{ path: formatIssuePath(path), code: 'invalid_type', message: issue.message }]
        : [
            {
              path: formatIssuePath(path),
              code: 'required',
              message: `required field is missing (expected ${issue.expected})`,
            },
          ];
    case 'invalid_union':
      return [{ path: formatIssuePath(path), code: 'invalid_value', message: issue.message }];
    case 'custom': {
      const params = issue.params as Params;
      return [
        withHint(
          { path: formatIssuePath(path), code: params?.code ?? 'invalid_value', message: issue.message },
          params?.hint,
        ),
      ];
    }
    default:
      return [{ path: formatIssuePath(path), code: issue.code, message: issue.message }];
  }
}

function withHint(issue: ValidationIssue, hint: string | undefined): ValidationIssue {
  return hint ? { ...issue, hint } : issue;
}
