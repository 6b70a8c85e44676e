import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

/** A TaskEnvelope to start from, as `GET sandbox/metadata` lists it. */
export interface EnvelopeTemplate {
  id: string;
  name: string;
  description: string;
  /** `built-in`, or the file it was read from. */
  source: string;
  envelope: Record<string, unknown>;
}

const VARIANTS_SCHEMA = {
  type: 'object',
  required: ['copyVariants'],
  properties: {
    copyVariants: {
      type: 'array',
      minItems: 2,
      maxItems: 2,
      items: {
        type: 'object',
        required: ['headline', 'body', 'callToAction'],
        properties: {
          headline: { type: 'string' },
          body: { type: 'string' },
          callToAction: { type: 'string' },
        },
      },
    },
  },
};

const LINKEDIN = {
  objective: 'Create LinkedIn post variants promoting AwesomePoster',
  inputs: {
    channel: 'linkedin',
    goal: 'attract_new_employees',
    toneOfVoice: 'inspiring',
    contextBundles: [
      {
        type: 'company_profile',
        payload: {
          companyName: 'AwesomePoster',
          coreValue: 'Human-first automation',
          recentEvent: 'Summer retreat in Tahoe',
        },
      },
    ],
  },
  specialInstructions: [
    'Variant A should highlight team culture.',
    'Variant B should highlight career growth opportunities.',
  ],
  outputContract: { schema: VARIANTS_SCHEMA },
};

/** Templates every sandbox offers: the sample run, and the same run with the guardrails people try first. */
export const BUILT_IN_TEMPLATES: readonly EnvelopeTemplate[] = [
  {
    id: 'linkedin-variants',
    name: 'LinkedIn post variants',
    description: 'Two variants from the reference agents: the README’s sample run.',
    source: 'built-in',
    envelope: LINKEDIN,
  },
  {
    id: 'linkedin-with-approval',
    name: 'LinkedIn post variants, approved by a human first',
    description: 'An onStart runtime policy asks an operator to approve before any agent runs.',
    source: 'built-in',
    envelope: {
      ...LINKEDIN,
      policies: {
        runtime: [
          {
            id: 'review',
            trigger: { kind: 'onStart' },
            action: { type: 'hitl', rationale: 'Approve the plan first' },
          },
        ],
      },
    },
  },
  {
    id: 'linkedin-with-pause',
    name: 'LinkedIn post variants, with a pause button',
    description: 'A manual runtime policy an operator fires to pause the run (resume continues it).',
    source: 'built-in',
    envelope: {
      ...LINKEDIN,
      policies: {
        runtime: [
          {
            id: 'hold',
            trigger: { kind: 'manual' },
            action: { type: 'pause', reason: 'Held by an operator' },
          },
        ],
      },
    },
  },
];

const MAX_FILES = 50;
const MAX_BYTES = 256 * 1024;

/**
 * The built-in templates, then each `flex-*.json` of `dir` (FLEX_SANDBOX_TEMPLATE_DIR): a file that
 * is too large or not a JSON object is left out, and the reason is in `skipped`.
 */
export function sandboxTemplates(dir: string | undefined): {
  templates: EnvelopeTemplate[];
  skipped: string[];
} {
  const templates = [...BUILT_IN_TEMPLATES];
  const skipped: string[] = [];
  if (!dir || !existsSync(dir)) return { templates, skipped };
  const files = readdirSync(dir)
    .filter((f) => /^flex-.*\.json$/.test(f))
    .sort()
    .slice(0, MAX_FILES);
  for (const file of files) {
    const path = join(dir, file);
    try {
      if (statSync(path).size > MAX_BYTES) throw new Error(`larger than ${MAX_BYTES} bytes`);
      const envelope: unknown = JSON.parse(readFileSync(path, 'utf8'));
      if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope))
        throw new Error('not a JSON object');
      const id = basename(file, '.json');
      const objective = (envelope as { objective?: unknown }).objective;
      const description = typeof objective === 'string' ? objective.slice(0, 200) : 'a TaskEnvelope';
      templates.push({
        id,
        name: id,
        description,
        source: file,
        envelope: envelope as Record<string, unknown>,
      });
    } catch (error) {
      skipped.push(`${file}: ${(error as Error).message}`);
    }
  }
  return { templates, skipped };
}
