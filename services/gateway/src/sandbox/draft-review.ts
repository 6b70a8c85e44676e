import { normalizeEnvelope, type ValidationIssue } from '@flex/contracts';
import { checkUntrustedSchema } from '@flex/facets';

/** What the builder says of a draft: the gateway's own verdict, and the fields still to fill in. */
export interface DraftReview {
  validation: { valid: boolean; issues: ValidationIssue[] };
  missing: Array<{ path: string; message: string }>;
}

/**
 * Validate a draft as `run.stream` would (the normalizer and TaskEnvelope contract, then the output
 * schema's safety checks), and list what a useful envelope still lacks, required or not.
 */
export function reviewDraft(draft: unknown, secretKeyPattern: RegExp): DraftReview {
  return { validation: validate(draft, secretKeyPattern), missing: missingFields(draft) };
}

function validate(draft: unknown, secretKeyPattern: RegExp): DraftReview['validation'] {
  const normalized = normalizeEnvelope(draft, { secretKeyPattern });
  if (!normalized.ok) return { valid: false, issues: normalized.errors.slice(0, 50) };
  const schemaIssues = checkUntrustedSchema(normalized.envelope.outputContract.schema).map((i) => ({
    path: i.path,
    code: 'invalid_output_contract',
    message: i.message,
  }));
  return { valid: schemaIssues.length === 0, issues: schemaIssues.slice(0, 50) };
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/** The missing-field guidance: each field a run needs (or is much better with), and how to fill it. */
export function missingFields(draft: unknown): DraftReview['missing'] {
  const envelope = record(draft) ?? {};
  const missing: DraftReview['missing'] = [];
  const need = (path: string, message: string) => missing.push({ path, message });
  if (typeof envelope.objective !== 'string' || !envelope.objective.trim())
    need('objective', 'Say in a sentence what the run should achieve.');
  const inputs = record(envelope.inputs);
  if (!inputs || Object.keys(inputs).length === 0)
    need(
      'inputs',
      'Give the agents what they work from: the channel, the audience, facts about the company.',
    );
  const schema = record(record(envelope.outputContract)?.schema);
  if (!schema) {
    need('outputContract.schema', 'Describe the result as a JSON Schema (an object with its properties).');
    return missing;
  }
  const properties = record(schema.properties);
  if (!properties || Object.keys(properties).length === 0)
    need('outputContract.schema.properties', 'List the fields of the result and the type of each.');
  if (!Array.isArray(schema.required) || schema.required.length === 0)
    need('outputContract.schema.required', 'Name the fields the result must always have.');
  return missing;
}
