import { SENSITIVE_MARK_KEY } from '@flex/contracts';
import type { ChatMessage } from './builder-model';
import type { DraftReview } from './draft-review';

/** Where an envelope holds caller data (the normalizer looks for secrets there too). */
const DATA_SECTIONS: ReadonlyArray<readonly string[]> = [
  ['inputs'],
  ['constraints'],
  ['metadata'],
  ['policies', 'planner', 'directives'],
];

const SYSTEM = `You help a developer write a Flex TaskEnvelope: the JSON a client submits to run AI agents.
Fields: objective (one sentence, required); inputs (an object: what the agents work from);
outputContract.schema (required: a JSON Schema of the result, type "object", with properties and required);
outputContract.constraints (optional JSONLogic rules); policies.runtime (optional: [{id, trigger: {kind}, action: {type}}],
trigger kinds onStart, onNodeComplete, onValidationFail, onTimeout, onMetricBelow, manual; action types replan, hitl,
fail, pause, emit); specialInstructions (optional array of strings).
Answer with JSON {"message": string, "patch": [JSON Patch operations]}. The patch (RFC 6902, JSON Pointer paths such
as "/outputContract/schema") is applied to the current draft; leave it empty when you need to ask first. The message
is short: what you changed, or the one question that matters. Never invent secret values: "[secret]" marks one.`;

/**
 * The messages of one turn: the rules, the registry's catalog, the conversation so far, then the
 * current draft (secrets masked), its problems and the developer's words.
 */
export function turnMessages(input: {
  catalog: string;
  history: readonly ChatMessage[];
  draft: unknown;
  review: DraftReview;
  message: string;
  secretKeyPattern: RegExp;
}): ChatMessage[] {
  const problems = [
    ...input.review.validation.issues.map(
      (i) => `- ${i.path || '(envelope)'}: ${i.message}${i.hint ? ` (${i.hint})` : ''}`,
    ),
    ...input.review.missing.map((m) => `- missing ${m.path}: ${m.message}`),
  ];
  const user = [
    `Current draft:\n${JSON.stringify(maskSecrets(input.draft, input.secretKeyPattern), null, 2)}`,
    problems.length ? `Problems:\n${problems.join('\n')}` : 'The draft is valid.',
    `The developer says: ${input.message}`,
  ].join('\n\n');
  return [
    { role: 'system', content: `${SYSTEM}\n\nCapabilities and facets available:\n${input.catalog}` },
    ...input.history,
    { role: 'user', content: user },
  ];
}

/** The draft with every secret value replaced by "[secret]": marked ones, and data keys that look like secrets. */
export function maskSecrets(draft: unknown, pattern: RegExp): unknown {
  const walk = (node: unknown, path: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((v) => walk(v, path));
    if (typeof node !== 'object' || node === null) return node;
    const entries = Object.entries(node as Record<string, unknown>);
    if (entries.length === 1 && entries[0][0] === SENSITIVE_MARK_KEY) return '[secret]';
    const inData = DATA_SECTIONS.some((section) => section.every((key, i) => path[i] === key));
    return Object.fromEntries(
      entries.map(([k, v]) => [k, inData && pattern.test(k) ? '[secret]' : walk(v, [...path, k])]),
    );
  };
  return walk(draft, []);
}

/** What the builder says with no model to ask: the problems and the missing fields, in words. */
export function guidance(review: DraftReview, why: string): string {
  if (review.validation.valid && !review.missing.length)
    return `${why} The draft is a valid envelope: start it, or edit it further.`;
  const first = review.missing[0] ?? review.validation.issues[0];
  const count = review.missing.length + (review.validation.valid ? 0 : review.validation.issues.length);
  return `${why} ${count} thing(s) to fix; first, ${first.path || 'the envelope'}: ${first.message}`;
}
