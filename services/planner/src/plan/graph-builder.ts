import {
  getFacetCatalog,
  facetAllows,
  type CapabilityRegistration,
  type PlanNodeKind,
  type TaskEnvelope,
} from '@flex/contracts';
import { scoreCapability } from './capability-scoring';
import type { PlanShape } from './plan-shape';
import { VALIDATION_FACETS } from './targets';

/** One agent node before it is compiled: what it calls, reads, writes and waits for. */
export interface NodeDraft {
  id: string;
  kind: PlanNodeKind;
  cap: CapabilityRegistration;
  inputs: string[];
  outputs: string[];
  deps: string[];
  /** Set when no declared capability produces `outputs` and the node leans on its agent's facets. */
  derived?: boolean;
}

const MAX_CHAIN_DEPTH = 6;

/** The agent behind a capability, as the validator reads it: `metadata.agentId`, else the id before its first dot. */
export function agentOf(cap: Pick<CapabilityRegistration, 'capabilityId' | 'metadata'>): string {
  const declared = cap.metadata?.agentId;
  return typeof declared === 'string' && declared.length > 0 ? declared : cap.capabilityId.split('.')[0];
}

/**
 * Chains capabilities backward from the facets the contract needs to what the envelope supplies
 * (forward coverage): for each needed facet, the best-scoring capability producing it; where none
 * is declared, a capability derived from an agent whose facets cover it. Drafts come out in
 * dependency order. Deterministic: capabilities arrive sorted by id and sorting is stable.
 */
export class GraphBuilder {
  readonly drafts: NodeDraft[] = [];
  readonly producedBy = new Map<string, string>();
  private readonly counters = new Map<PlanNodeKind, number>();

  constructor(
    private readonly envelope: TaskEnvelope,
    /** The capabilities the plan may call (forbidden ones removed), sorted by id. */
    private readonly capabilities: readonly CapabilityRegistration[],
    /** The whole registry: an agent's facets are those of all its capabilities, usable or not. */
    private readonly registry: readonly CapabilityRegistration[],
    private readonly supplied: ReadonlySet<string>,
    private readonly shape: PlanShape,
    private readonly schemaTargets: readonly string[],
  ) {}

  /** The node (or 'envelope') that supplies `facet`, adding producers as needed; undefined if none can. */
  ensure(facet: string, depth = 0): string | undefined {
    if (this.producedBy.has(facet)) return this.producedBy.get(facet);
    if (this.supplied.has(facet)) return 'envelope';
    if (depth > MAX_CHAIN_DEPTH) return undefined;
    const allowed = (outputs: readonly string[]) => !this.shape.forbiddenKinds.includes(this.kindOf(outputs));
    const declared = this.best(
      this.capabilities.filter((c) => c.outputContract.includes(facet) && allowed(c.outputContract)),
      facet,
    );
    if (declared) return this.add(declared, depth, declared.inputContract, [...declared.outputContract]);
    const derived = allowed([facet]) ? this.deriveFor(facet) : undefined;
    return derived ? this.add(derived.cap, depth, derived.inputs, [facet], true) : undefined;
  }

  /** Add `cap` unless a node already calls it. */
  include(cap: CapabilityRegistration): void {
    if (!this.drafts.some((d) => d.cap.capabilityId === cap.capabilityId))
      this.add(cap, 0, cap.inputContract, [...cap.outputContract]);
  }

  private best(candidates: CapabilityRegistration[], facet: string): CapabilityRegistration | undefined {
    let best: CapabilityRegistration | undefined;
    let bestScore = -Infinity;
    for (const c of candidates) {
      const score = scoreCapability(c, [facet, ...this.schemaTargets], this.envelope, this.shape);
      if (score > bestScore) [best, bestScore] = [c, score];
    }
    return best;
  }

  /**
   * Spec 003 §5.7 step 1: no usable declared capability produces `facet`, but an agent declares it
   * (on a capability the plan may not call): derive the node from one of that agent's usable
   * capabilities, reading any input the agent declares. The validator checks the agent covers both.
   */
  private deriveFor(facet: string): { cap: CapabilityRegistration; inputs: string[] } | undefined {
    const definition = getFacetCatalog().get(facet);
    if (!definition || !facetAllows(definition, 'output')) return undefined;
    const agents = new Set(this.registry.filter((c) => c.outputContract.includes(facet)).map(agentOf));
    const cap = this.best(
      this.capabilities.filter((c) => agents.has(agentOf(c))),
      facet,
    );
    if (!cap) return undefined;
    const agent = agentOf(cap);
    const inputs = [
      ...new Set(this.registry.filter((c) => agentOf(c) === agent).flatMap((c) => c.inputContract)),
    ];
    return { cap, inputs };
  }

  private add(
    cap: CapabilityRegistration,
    depth: number,
    candidateInputs: readonly string[],
    outputs: string[],
    derived = false,
  ): string {
    const kind = this.kindOf(outputs);
    const n = (this.counters.get(kind) ?? 0) + 1;
    this.counters.set(kind, n);
    const id = `${kind}-${n}`;
    for (const f of outputs) if (!this.producedBy.has(f)) this.producedBy.set(f, id);
    const inputs: string[] = [];
    const deps = new Set<string>();
    for (const f of candidateInputs) {
      if (outputs.includes(f)) continue;
      const source = this.ensure(f, depth + 1);
      if (source === undefined) continue;
      inputs.push(f);
      if (source !== 'envelope' && source !== id) deps.add(source);
    }
    this.drafts.push({
      id,
      kind,
      cap,
      inputs,
      outputs,
      deps: [...deps].sort(),
      ...(derived ? { derived } : {}),
    });
    return id;
  }

  /**
   * The drafts with their final kinds and ids: QA-only producers are validation nodes, a node
   * another (non-QA) node reads from is structuring, the rest execute. Ids are numbered per kind
   * in dependency order, and `producedBy` follows the renaming.
   */
  classified(): NodeDraft[] {
    const feeds = new Set(this.drafts.filter((d) => d.kind !== 'validation').flatMap((d) => d.deps));
    const counters = new Map<PlanNodeKind, number>();
    const rename = new Map<string, string>();
    const kinds = this.drafts.map((d) =>
      d.kind === 'validation' ? d.kind : feeds.has(d.id) ? 'structuring' : 'execution',
    );
    this.drafts.forEach((d, i) => {
      const n = (counters.get(kinds[i]) ?? 0) + 1;
      counters.set(kinds[i], n);
      rename.set(d.id, `${kinds[i]}-${n}`);
    });
    for (const [facet, id] of this.producedBy) this.producedBy.set(facet, rename.get(id) ?? id);
    return this.drafts.map((d, i) => ({
      ...d,
      kind: kinds[i],
      id: rename.get(d.id) as string,
      deps: d.deps.map((x) => rename.get(x) ?? x).sort(),
    }));
  }

  private kindOf(outputs: readonly string[]): PlanNodeKind {
    if (outputs.every((f) => VALIDATION_FACETS.has(f))) return 'validation';
    return outputs.some((f) => this.schemaTargets.includes(f)) ? 'execution' : 'structuring';
  }
}
