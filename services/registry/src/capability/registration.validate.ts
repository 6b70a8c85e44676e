import { CapabilityRegistrationSchema, getFacetCatalog, type CapabilityRegistration } from '@flex/contracts';

export interface RegistrationIssue {
  path: string;
  code: string;
  message: string;
}

export type RegistrationCheck = { ok: true; registration: CapabilityRegistration } | { ok: false; issues: RegistrationIssue[] };

/** Shape first, then the facet catalog: unknown facets and facets used against their direction are rejected. */
export function validateRegistration(raw: unknown): RegistrationCheck {
  const parsed = CapabilityRegistrationSchema.safeParse(raw);
  if (!parsed.success) {
    return {
      ok: false,
      issues: parsed.error.issues.map((i) => ({ path: i.path.join('.') || '(root)', code: 'invalid_registration', message: i.message })),
    };
  }
  const registration = parsed.data;
  const catalog = getFacetCatalog();
  const issues: RegistrationIssue[] = [];
  const check = (list: readonly string[], field: 'inputContract' | 'outputContract', wrong: string) => {
    list.forEach((name, index) => {
      const facet = catalog.get(name);
      if (!facet) issues.push({ path: `${field}[${index}]`, code: 'unknown_facet', message: `facet ${name} is not in the catalog` });
      else if (facet.metadata.directionality === wrong) {
        issues.push({ path: `${field}[${index}]`, code: 'direction_mismatch', message: `facet ${name} is ${wrong}-only and cannot be used in ${field}` });
      }
    });
  };
  check(registration.inputContract, 'inputContract', 'output');
  check(registration.outputContract, 'outputContract', 'input');
  if (registration.outputContract.length === 0) issues.push({ path: 'outputContract', code: 'missing_output_contract', message: 'a capability must produce at least one facet' });
  return issues.length ? { ok: false, issues } : { ok: true, registration };
}
