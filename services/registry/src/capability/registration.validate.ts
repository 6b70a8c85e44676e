import {
  CapabilityRegistrationSchema,
  findUnstorableText,
  getFacetCatalog,
  type CapabilityRegistration,
} from '@flex/contracts';

export interface RegistrationIssue {
  /** Where in the registration, as `outputContract[1]` or `heartbeat.timeoutSeconds`. */
  path: string;
  code:
    | 'invalid_registration'
    | 'unknown_facet'
    | 'direction_mismatch'
    | 'missing_output_contract'
    /** The subject's identity token is not an identity name. */
    | 'invalid_identity'
    /** The subject names another capability than the body: one of them lies. */
    | 'subject_mismatch';
  message: string;
}

export type RegistrationCheck =
  { ok: true; registration: CapabilityRegistration } | { ok: false; issues: RegistrationIssue[] };

/**
 * Shape first, then the facet catalog: an unknown facet, a facet used against its direction, or a
 * capability that produces nothing is rejected with the path and the reason. Pure.
 */
export function validateRegistration(raw: unknown): RegistrationCheck {
  // Text Postgres cannot store (a NUL, a lone surrogate) is refused here, not at the append.
  const unstorable = findUnstorableText(raw);
  if (unstorable) return { ok: false, issues: [shapeIssue(unstorable.path, unstorable.message)] };
  const parsed = CapabilityRegistrationSchema.safeParse(raw);
  if (!parsed.success) {
    return { ok: false, issues: parsed.error.issues.map((i) => shapeIssue(i.path, i.message)) };
  }
  const registration = parsed.data;
  const catalog = getFacetCatalog();
  const issues: RegistrationIssue[] = [];
  const check = (list: readonly string[], field: 'inputContract' | 'outputContract', wrong: string) => {
    list.forEach((name, index) => {
      const facet = catalog.get(name);
      const path = `${field}[${index}]`;
      if (!facet)
        issues.push({ path, code: 'unknown_facet', message: `facet ${name} is not in the catalog` });
      else if (facet.metadata.directionality === wrong) {
        issues.push({
          path,
          code: 'direction_mismatch',
          message: `facet ${name} is ${wrong}-only and cannot be used in ${field}`,
        });
      }
    });
  };
  check(registration.inputContract, 'inputContract', 'output');
  check(registration.outputContract, 'outputContract', 'input');
  return issues.length ? { ok: false, issues } : { ok: true, registration };
}

/** One line per issue, for error messages: `outputContract[0]: facet x is not in the catalog`. */
export function describeIssues(issues: readonly RegistrationIssue[]): string {
  const shown = issues.slice(0, 5).map((i) => `${i.path}: ${i.message}`);
  return issues.length > 5 ? `${shown.join('; ')}; and ${issues.length - 5} more` : shown.join('; ');
}

function shapeIssue(path: readonly PropertyKey[], message: string): RegistrationIssue {
  const at = formatPath(path);
  // An absent or empty output contract is its own condition: the capability would produce nothing.
  if (at === 'outputContract')
    return {
      path: at,
      code: 'missing_output_contract',
      message: `a capability must produce at least one facet (${message})`,
    };
  return { path: at, code: 'invalid_registration', message };
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  return out || '(root)';
}
