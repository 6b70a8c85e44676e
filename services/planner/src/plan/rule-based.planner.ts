import {
  canonicalJson,
  contentHash,
  type CapabilityRegistration,
  type DiagnosticsBundle,
  type PlanEdge,
  type PlanGraph,
  type PlannerError,
  type PlanNode,
  type PlanNodeKind,
  type TaskEnvelope,
} from '@flex/contracts';
import { envelopeFacets, FacetContractCompiler, instructionsFor } from '@flex/facets';
import { matchesAny, scoreCapability } from './capability-scoring';

export const RULE_BASED_PLANNER = { id: 'rule-based', version: '0.1.0', mode: 'full' as const };

export interface PlannerInput {
  envelope: TaskEnvelope;
  capabilities: readonly CapabilityRegistration[];
  planVersion: number;
  attempt: number;
  diagnostics?: DiagnosticsBundle;
}

export type PlannerResult = { ok: true; plan: PlanGraph; planHash: string } | { ok: false; error: PlannerError };

const VALIDATION_FACETS = new Set(['qaFindings', 'recommendationSet']);
const MAX_CHAIN_DEPTH = 6;
const compiler = new FacetContractCompiler();

/**
 * A deterministic planner (spec 004 mode `full`): the same normalized input gives a byte-identical
 * plan. It chains capabilities backward from the facets the contract needs to what the envelope
 * supplies, choosing by facet coverage and score, then ends the plan with a fallback node.
 */
export function planRuleBased(input: PlannerInput): PlannerResult {
  const { envelope } = input;
  const forbid = envelope.policies?.planner?.selection?.forbid;
  const capabilities = [...input.capabilities]
    .filter((c) => !matchesAny(c.capabilityId, forbid))
    .sort((a, b) => (a.capabilityId < b.capabilityId ? -1 : a.capabilityId > b.capabilityId ? 1 : 0));
  const targets = targetFacets(envelope);
  if (targets.length === 0) {
    return fail('PLANNER_INVALID_GOAL', 'the output contract names no facet any capability can produce', {
      properties: Object.keys(schemaProperties(envelope)),
    });
  }
  const builder = new GraphBuilder(envelope, capabilities, new Set(Object.keys(envelopeFacets(envelope).values)));
  const missing = targets.filter((facet) => builder.ensure(facet, 0, targets) === undefined);
  if (missing.length > 0) {
    return fail('PLANNER_NO_CAPABILITIES', `no active capability produces ${missing.join(', ')}`, { missingFacets: missing });
  }
  for (const required of envelope.policies?.planner?.selection?.require ?? []) {
    const cap = capabilities.find((c) => matchesAny(c.capabilityId, [required]));
    if (!cap) return fail('PLANNER_NO_CAPABILITIES', `required capability ${required} is not registered and active`, { required });
    builder.include(cap, targets);
  }
  const plan = builder.finish(input);
  return { ok: true, plan, planHash: contentHash(plan) };
}

/** Facets the caller's schema asks for at its top level, plus those hard constraints read. */
export function targetFacets(envelope: TaskEnvelope): string[] {
  const wanted = new Set(Object.keys(schemaProperties(envelope)));
  for (const c of envelope.outputContract.constraints ?? []) {
    if (c.level === 'hard') for (const path of varPaths(c.expr)) wanted.add(path.split('.')[0]);
  }
  return [...wanted].filter((f) => f.length > 0).sort();
}

function schemaProperties(envelope: TaskEnvelope): Record<string, unknown> {
  const props = (envelope.outputContract.schema as { properties?: unknown }).properties;
  return props && typeof props === 'object' ? (props as Record<string, unknown>) : {};
}

function varPaths(expr: unknown): string[] {
  if (Array.isArray(expr)) return expr.flatMap(varPaths);
  if (!expr || typeof expr !== 'object') return [];
  return Object.entries(expr).flatMap(([op, arg]) => {
    if (op !== 'var') return varPaths(arg);
    const path = Array.isArray(arg) ? arg[0] : arg;
    return typeof path === 'string' ? [path] : [];
  });
}

function fail(code: PlannerError['code'], message: string, details: Record<string, unknown>): PlannerResult {
  return { ok: false, error: { code, message, retryable: false, details } };
}

interface Draft {
  id: string;
  kind: PlanNodeKind;
  cap: CapabilityRegistration;
  inputs: string[];
  deps: string[];
}

class GraphBuilder {
  private readonly drafts: Draft[] = [];
  private readonly producedBy = new Map<string, string>();
  private readonly counters = new Map<PlanNodeKind, number>();

  constructor(
    private readonly envelope: TaskEnvelope,
    private readonly capabilities: readonly CapabilityRegistration[],
    private readonly supplied: ReadonlySet<string>,
  ) {}

  /** The node (or 'envelope') that supplies `facet`, adding producers as needed; undefined if none can. */
  ensure(facet: string, depth: number, targets: readonly string[]): string | undefined {
    if (this.producedBy.has(facet)) return this.producedBy.get(facet);
    if (this.supplied.has(facet)) return 'envelope';
    if (depth > MAX_CHAIN_DEPTH) return undefined;
    const candidates = this.capabilities
      .filter((c) => c.outputContract.includes(facet))
      .map((c) => ({ c, score: scoreCapability(c, [facet, ...targets], this.envelope) }))
      .sort((a, b) => b.score - a.score);
    if (candidates.length === 0) return undefined;
    return this.add(candidates[0].c, depth, targets);
  }

  include(cap: CapabilityRegistration, targets: readonly string[]): void {
    if (!this.drafts.some((d) => d.cap.capabilityId === cap.capabilityId)) this.add(cap, 0, targets);
  }

  private add(cap: CapabilityRegistration, depth: number, targets: readonly string[]): string {
    const kind = this.kindOf(cap, targets);
    const n = (this.counters.get(kind) ?? 0) + 1;
    this.counters.set(kind, n);
    const id = `${kind}-${n}`;
    for (const f of cap.outputContract) if (!this.producedBy.has(f)) this.producedBy.set(f, id);
    const inputs: string[] = [];
    const deps = new Set<string>();
    for (const f of cap.inputContract) {
      const source = this.ensure(f, depth + 1, targets);
      if (source === undefined) continue;
      inputs.push(f);
      if (source !== 'envelope' && source !== id) deps.add(source);
    }
    this.drafts.push({ id, kind, cap, inputs, deps: [...deps].sort() });
    return id;
  }

  private kindOf(cap: CapabilityRegistration, targets: readonly string[]): PlanNodeKind {
    if (cap.outputContract.every((f) => VALIDATION_FACETS.has(f))) return 'validation';
    return cap.outputContract.some((f) => targets.includes(f)) ? 'execution' : 'structuring';
  }

  finish(input: PlannerInput): PlanGraph {
    const nodes: PlanNode[] = this.drafts.map((d) => this.toNode(d));
    const edges: PlanEdge[] = this.drafts.flatMap((d) => d.deps.map((from) => ({ from, to: d.id })));
    const terminal = [...this.drafts].reverse().find((d) => d.kind === 'execution') ?? this.drafts[this.drafts.length - 1];
    nodes.push({
      id: 'fallback-1',
      kind: 'fallback',
      label: 'Escalate to a human operator',
      inputFacets: terminal.inputs,
      outputFacets: terminal.cap.outputContract,
      fallbackFor: terminal.id,
      instructions: `If ${terminal.id} cannot produce a valid result, a human operator supplies it.`,
      rationale: 'Every plan ends with a HITL fallback for its terminal execution node.',
    });
    edges.push({ from: terminal.id, to: 'fallback-1' });
    return {
      planVersion: input.planVersion,
      nodes,
      edges,
      metadata: {
        plannerId: RULE_BASED_PLANNER.id,
        plannerVersion: RULE_BASED_PLANNER.version,
        determinism: RULE_BASED_PLANNER.mode,
        inputHash: plannerInputHash(input),
        planVersionTag: `v${input.planVersion}`,
        branchCount: 0,
        derivedCapabilities: [],
        normalizationInjected: false,
      },
    };
  }

  private toNode(d: Draft): PlanNode {
    const node: PlanNode = {
      id: d.id,
      kind: d.kind,
      label: d.cap.displayName,
      capabilityId: d.cap.capabilityId,
      inputFacets: d.inputs,
      outputFacets: [...d.cap.outputContract],
      instructions: instructionsFor([...d.inputs, ...d.cap.outputContract], 'output'),
      rationale: `${d.cap.capabilityId} produces ${d.cap.outputContract.join(', ')} from ${d.inputs.join(', ') || 'nothing upstream'}.`,
    };
    try {
      node.inputSchema = compiler.compile(d.inputs, 'input').schema;
      node.outputSchema = compiler.compile(d.cap.outputContract, 'output').schema;
    } catch {
      // The validator reports contract conflicts with their codes; the draft still goes to it.
    }
    return node;
  }
}

/** Spec 004 input normalization: the goal trimmed and lower-cased, everything else canonical JSON. */
export function plannerInputHash(input: PlannerInput): string {
  const { envelope } = input;
  return contentHash({
    goal: envelope.objective.trim().toLowerCase(),
    inputs: envelope.inputs ?? {},
    specialInstructions: envelope.specialInstructions ?? [],
    outputContract: envelope.outputContract,
    policies: envelope.policies?.planner ?? {},
    capabilities: input.capabilities.map((c) => canonicalJson(c)).sort(),
    planVersion: input.planVersion,
  });
}
