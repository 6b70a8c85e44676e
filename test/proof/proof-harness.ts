import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { normalizeEnvelope, type PlanGraph, type PlanNode, type TaskEnvelope } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import { decideAdvance } from '@flex/executor';
import { facetSchemaOf, type JsonSchema } from '@flex/proof';
import { arbitraryOf } from '../../libs/proof/src/schema/schema-arbitrary';
import {
  evolveRun,
  initialRunState,
  mainPathComplete,
  type RunState,
  type StartedRun,
} from '@flex/run-model';
import type { GeneratedContract } from './contract.arbitrary';

const sample = JSON.parse(readFileSync(join(__dirname, '../../examples/envelope.json'), 'utf8'));

/** The sample envelope carrying a generated contract, normalized as the gateway does; undefined when refused. */
export function envelopeFor(contract: GeneratedContract): TaskEnvelope | undefined {
  const raw = JSON.parse(JSON.stringify(sample));
  raw.outputContract = { schema: contract.schema, constraints: contract.constraints };
  if (contract.variantCount === undefined) delete raw.inputs.variantCount;
  else raw.inputs.variantCount = contract.variantCount;
  const result = normalizeEnvelope(raw);
  return result.ok ? result.envelope : undefined;
}

/** The schemas an agent node's output facet must satisfy: its facet's, and its binding. */
export function contractOf(node: PlanNode, facet: string, withBinding = true): JsonSchema[] {
  const schema = facetSchemaOf(facet);
  const bound = withBinding ? node.bindings?.outputs?.[facet] : undefined;
  return [...(schema === undefined ? [] : [schema]), ...(bound ? [bound] : [])];
}

/** An arbitrary of whole node outputs (every output facet), each valid against its contract. */
export function outputArbitrary(node: PlanNode, withBinding = true): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    Object.fromEntries(node.outputFacets.map((f) => [f, arbitraryOf(contractOf(node, f, withBinding))])),
  );
}

type Outputs = (node: PlanNode) => Record<string, unknown>;

/**
 * Drive the real executor's decide over `plan` until the main path has completed, each agent
 * node answering with `outputs(node)`; orchestrator-managed nodes complete as the executor makes
 * them (pass-through, concatenation). Returns the state the final output is composed from.
 */
export function runToCompletion(plan: PlanGraph, envelope: TaskEnvelope, outputs: Outputs): StartedRun {
  const result = tryRunToCompletion(plan, envelope, outputs);
  if (result.ok) return result.state;
  throw new Error(result.reason);
}

/** {@link runToCompletion}, saying why when the run cannot complete (a node failed for good). */
export function tryRunToCompletion(
  plan: PlanGraph,
  envelope: TaskEnvelope,
  outputs: Outputs,
): { ok: true; state: StartedRun } | { ok: false; reason: string; errors: Array<{ path: string }> } {
  const errors: Array<{ path: string }> = [];
  let version = 0;
  const at = (type: string, payload: unknown): StoredEvent => {
    version += 1;
    const timestamp = new Date(Date.parse('2026-01-01T00:00:00.000Z') + version * 1000).toISOString();
    return {
      position: version,
      id: `e${version}`,
      streamId: 'run-p',
      version,
      type,
      payload,
      metadata: { correlationId: 'c' },
      timestamp,
    };
  };
  const diagnostics = { status: 'accepted', satisfactionScore: 1, failures: [], warnings: [], infos: [] };
  let state: RunState = [
    at('start', { runId: 'p', envelope, normalization: [], owner: { principal: 't', role: 'client' } }),
    at('plan_generated', {
      planVersion: 1,
      plan,
      nodes: [],
      ...diagnostics,
      diagnostics,
      planHash: 'h'.repeat(64),
      metadata: plan.metadata,
    }),
  ].reduce(evolveRun, initialRunState());
  for (let guard = 0; guard < 1_000; guard++) {
    if (state.status === 'none') throw new Error('the run did not start');
    if (mainPathComplete(plan, state.nodes)) return { ok: true, state };
    const { events } = decideAdvance(state, new Date('2026-01-01T01:00:00.000Z'));
    const ended = events.find((e) => e.type === 'run_failed');
    if (events.length === 0 || ended)
      return {
        ok: false,
        reason: `the run cannot complete: ${JSON.stringify(ended ?? state.nodes)}`,
        errors,
      };
    for (const e of events) {
      // What the run-time checks refused on the way (node outputs, enforced constraints, the whole).
      if (e.type === 'validation_error')
        errors.push(...(e.payload as { errors: Array<{ path: string }> }).errors);
      state = evolveRun(state, at(e.type, e.payload));
      const node =
        e.type === 'node_start'
          ? plan.nodes.find((n) => n.id === (e.payload as { nodeId: string }).nodeId)
          : undefined;
      if (node?.capabilityId)
        state = evolveRun(
          state,
          at('node_complete', { nodeId: node.id, attempt: 1, output: outputs(node), durationMs: 1 }),
        );
    }
  }
  return { ok: false, reason: 'the run did not complete within 1,000 decisions', errors };
}
