import type { TaskEnvelope } from '@flex/contracts';
import { defaultFacetCompiler } from '../compiler/default-compiler';
import { deepFreeze, type FacetContractCompiler } from '../compiler/facet-contract.compiler';
import type { FacetValidationError } from '../compiler/facet-validation';
import {
  assetCandidates,
  audienceCandidates,
  explicit,
  knobCandidates,
  objectiveBriefCandidates,
  toneCandidates,
  type Candidate,
} from './envelope-candidates';

/** An envelope value offered for a facet but left out. */
export interface EnvelopeFacetIssue {
  readonly facet: string;
  /** Where the value sits in the envelope. */
  readonly path: string;
  readonly code: 'INVALID_FACET_VALUE' | 'DIRECTION_MISMATCH';
  readonly message: string;
  readonly errors: readonly FacetValidationError[];
}

/** The facet values an envelope supplies by itself, each checked against its facet schema. */
export interface EnvelopeFacets {
  readonly values: Record<string, unknown>;
  /** For each value, the envelope path(s) it came from (comma-separated when several). */
  readonly sources: Record<string, string>;
  readonly issues: readonly EnvelopeFacetIssue[];
}

// Facets with a rule of their own; any other `inputs.<facet name>` is taken as it is.
const RULES: ReadonlyArray<readonly [string, (envelope: TaskEnvelope) => Candidate[]]> = [
  [
    'objectiveBrief',
    (envelope) => [...explicit(envelope, 'objectiveBrief'), ...objectiveBriefCandidates(envelope)],
  ],
  ['audienceProfile', audienceCandidates],
  ['toneOfVoice', toneCandidates],
  ['assetBundle', assetCandidates],
  ['qaRubric', (envelope) => explicit(envelope, 'qaRubric')],
];
const OWN_RULE = new Set([...RULES.map(([facet]) => facet), 'planKnobs']);

// Per compiler, the facets of each frozen envelope. The services decide on deep-frozen run states, and
// a run's planner, validator and executor ask for its envelope's facets a dozen times: each answer
// validated every candidate again and cloned every value.
const known = new WeakMap<FacetContractCompiler, WeakMap<TaskEnvelope, EnvelopeFacets>>();

/**
 * For every facet, the first candidate (most explicit first) that validates becomes the value;
 * candidates tried and refused on the way are reported. Pure and deterministic. For a frozen
 * envelope the answer is worked out once and shared, frozen.
 */
export function envelopeFacets(
  envelope: TaskEnvelope,
  compiler: FacetContractCompiler = defaultFacetCompiler(),
): EnvelopeFacets {
  if (!Object.isFrozen(envelope) || !Object.isFrozen(envelope.inputs)) return facetsOf(envelope, compiler);
  let byEnvelope = known.get(compiler);
  if (!byEnvelope) known.set(compiler, (byEnvelope = new WeakMap()));
  let facets = byEnvelope.get(envelope);
  if (!facets) {
    facets = deepFreeze(facetsOf(envelope, compiler));
    byEnvelope.set(envelope, facets);
  }
  return facets;
}

function facetsOf(envelope: TaskEnvelope, compiler: FacetContractCompiler): EnvelopeFacets {
  const out = {
    values: {} as Record<string, unknown>,
    sources: {} as Record<string, string>,
    issues: [] as EnvelopeFacetIssue[],
  };
  const check = (facet: string, candidate: Candidate): boolean => {
    const errors = compiler.validateFacet(facet, candidate.value);
    if (errors.length === 0) return true;
    const message = `${candidate.source} is not a valid ${facet}: ${errors.map((e) => `${e.pointer} ${e.message}`).join('; ')}`;
    out.issues.push({ facet, path: candidate.source, code: 'INVALID_FACET_VALUE', message, errors });
    return false;
  };
  const take = (facet: string, value: unknown, source: string) => {
    out.values[facet] = structuredClone(value);
    out.sources[facet] = source;
  };
  for (const [facet, rule] of RULES) {
    const chosen = rule(envelope).find((candidate) => check(facet, candidate));
    if (chosen) take(facet, chosen.value, chosen.source);
  }
  const knobs = planKnobs(envelope, check);
  if (knobs) take('planKnobs', knobs.value, knobs.source);
  for (const key of Object.keys(envelope.inputs).sort()) {
    const definition = compiler.facet(key);
    if (!definition || OWN_RULE.has(key)) continue;
    const candidate = { value: envelope.inputs[key], source: `inputs.${key}` };
    if (definition.metadata.directionality === 'output') {
      const message = `${key} is produced by capabilities; an envelope cannot supply it`;
      out.issues.push({
        facet: key,
        path: candidate.source,
        code: 'DIRECTION_MISMATCH',
        message,
        errors: [],
      });
    } else if (check(key, candidate)) {
      take(key, candidate.value, candidate.source);
    }
  }
  return out;
}

/** Knob by knob, the first valid source wins; the facet needs at least one knob. */
function planKnobs(
  envelope: TaskEnvelope,
  check: (facet: string, candidate: Candidate) => boolean,
): Candidate | null {
  const value: Record<string, unknown> = {};
  const sources: string[] = [];
  for (const [knob, candidates] of Object.entries(knobCandidates(envelope))) {
    const chosen = candidates.find((c) =>
      check('planKnobs', { value: { [knob]: c.value }, source: c.source }),
    );
    if (chosen) {
      value[knob] = chosen.value;
      sources.push(chosen.source);
    }
  }
  return sources.length > 0 ? { value, source: sources.join(', ') } : null;
}
