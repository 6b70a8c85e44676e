import { startAgent, type AgentDefinition, type AgentHandle, type StartAgentOptions } from '@flex/agent-sdk';
import { contentGeneratorAgent } from './content-generator';
import { withLlm } from './llm/llm-agent';
import type { LlmConfig } from './llm/llm.config';
import { REFERENCE_BRIEFS } from './llm/reference-briefs';
import { qualityAssuranceAgent } from './quality-assurance';
import { strategyManagerAgent } from './strategy-manager';

/** The spec's "Current Inventory": strategy, copywriter, quality assurance (deterministic). */
export const referenceAgents: readonly AgentDefinition[] = Object.freeze([
  strategyManagerAgent,
  contentGeneratorAgent,
  qualityAssuranceAgent,
]);

/** The reference agents answering through an LLM, each falling back to its deterministic logic. */
export function llmReferenceAgents(llm: LlmConfig): readonly AgentDefinition[] {
  return referenceAgents.map((agent) =>
    withLlm(agent, llm, REFERENCE_BRIEFS[agent.registration.capabilityId]),
  );
}

export interface StartReferenceAgentsOptions extends Omit<StartAgentOptions, 'instanceId'> {
  /** Capability ids to start; all reference agents when absent. */
  only?: readonly string[];
  /** Instance id per agent; defaults to the SDK's `<host>-<pid>-<random>`. */
  instanceId?: (capabilityId: string) => string;
  /** Answer through this OpenAI-compatible API (see `llmConfigFrom`); deterministic when absent. */
  llm?: LlmConfig;
}

export interface ReferenceAgents {
  handles: readonly AgentHandle[];
  /** Resolves when every agent is registered. */
  ready: Promise<void>;
  stop(reason?: string): Promise<void>;
}

/** Starts the reference agents on one messaging, each registering like any third party would. */
export async function startReferenceAgents(options: StartReferenceAgentsOptions): Promise<ReferenceAgents> {
  const { only, instanceId, llm, ...common } = options;
  const unknown = (only ?? []).filter(
    (id) => !referenceAgents.some((a) => a.registration.capabilityId === id),
  );
  if (unknown.length > 0) throw new TypeError(`unknown reference agent(s): ${unknown.join(', ')}`);
  const all = llm ? llmReferenceAgents(llm) : referenceAgents;
  const chosen = only ? all.filter((a) => only.includes(a.registration.capabilityId)) : all;
  const handles: AgentHandle[] = [];
  try {
    for (const agent of chosen)
      handles.push(
        await startAgent(agent, { ...common, instanceId: instanceId?.(agent.registration.capabilityId) }),
      );
  } catch (error) {
    await Promise.allSettled(handles.map((h) => h.stop('start_failed')));
    throw error;
  }
  const ready = Promise.all(handles.map((h) => h.ready)).then(() => undefined);
  ready.catch(() => undefined); // each handle logs its own rejection; awaiting `ready` still sees it
  return {
    handles,
    ready,
    stop: async (reason) => {
      await Promise.all(handles.map((h) => h.stop(reason)));
    },
  };
}
