import { normalizeEnvelope, type NormalizationChange, type ValidationIssue } from '@flex/contracts';

/** What the editor says of its text as the user types: the contract's verdict, in the browser. */
export type EnvelopeCheck =
  | { kind: 'empty' }
  | { kind: 'not_json'; message: string }
  | { kind: 'invalid'; issues: ValidationIssue[] }
  | { kind: 'valid'; changes: NormalizationChange[]; secretPaths: string[] };

/**
 * Parse the text and run it through the same normalizer and TaskEnvelope contract as the gateway
 * (bundled from `@flex/contracts`), so the page says what the API would, before anything is sent.
 * What only the server checks (the output schema's safety limits, secrets storage) comes back as
 * server errors with their paths.
 */
export function checkEnvelope(text: string): EnvelopeCheck {
  if (!text.trim()) return { kind: 'empty' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { kind: 'not_json', message: (error as Error).message };
  }
  const result = normalizeEnvelope(value);
  if (!result.ok) return { kind: 'invalid', issues: result.errors };
  return { kind: 'valid', changes: result.changes, secretPaths: result.secrets.map((s) => s.path) };
}
