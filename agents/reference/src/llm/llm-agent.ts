import {
  defineAgent,
  effectiveOutputSchema,
  fitToSchema,
  type AgentContext,
  type AgentDefinition,
  type AgentInvocation,
  type AgentUsage,
} from '@flex/agent-sdk';
import { defaultFacetCompiler } from '@flex/facets';
import { completeStructured, LlmUnavailableError, type ChatMessage } from './chat-completions';
import type { LlmConfig } from './llm.config';

/** The model named in usage when the deterministic logic answered after the LLM failed. */
export const FALLBACK_MODEL = 'deterministic (llm fallback)';

/** What the agent tells the model besides the facet contract: its job, in a few sentences. */
export type LlmBrief = (invocation: AgentInvocation) => string;

/**
 * The same agent, answering through an LLM: the model is asked for exactly the requested output
 * facets under their compiled contract (JSON-schema response format, strict), the answer is
 * validated against that contract, and usage is reported in tokens. When the model cannot give a
 * valid answer (429 beyond the retries, timeouts, invalid JSON, contract violations, any other
 * error) the agent falls back to its deterministic handler, so a run never fails for want of an LLM;
 * the reported usage still counts the tokens spent and names the model `deterministic (llm fallback)`.
 */
export function withLlm(agent: AgentDefinition, llm: LlmConfig, brief: LlmBrief): AgentDefinition {
  const compiler = defaultFacetCompiler();
  const name = agent.registration.capabilityId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return defineAgent({
    registration: {
      ...agent.registration,
      preferredModels: [llm.model],
      metadata: { ...agent.registration.metadata, deterministic: false, llm: true },
    },
    handle: async (invocation, ctx) => {
      const facets =
        invocation.outputFacets.length > 0 ? invocation.outputFacets : agent.registration.outputContract;
      const contract = compiler.compile(facets, 'output');
      try {
        const { value, usage } = await completeStructured(llm, {
          name,
          schema: contract.schema,
          messages: promptFor(invocation, agent, contract.instruction, brief(invocation)),
          validate: (v) =>
            contract.validate(v).map((e) => `${e.facet}${e.pointer ? ` ${e.pointer}` : ''}: ${e.message}`),
          signal: ctx.signal,
          onRetry: (attempt, reason, delayMs) =>
            ctx.logger.warn('agent_llm_retry', { attempt, reason, retryInMs: delayMs }),
        });
        ctx.reportUsage({ tokens: usage.tokens, model: usage.model });
        // The response format carries the facet contract; the caller's bounds are held here.
        return fitToSchema(value as Record<string, unknown>, effectiveOutputSchema(invocation));
      } catch (error) {
        const spent = error instanceof LlmUnavailableError ? error.usage.tokens : 0;
        const reason = error instanceof LlmUnavailableError ? error.reason : (error as Error).message;
        ctx.logger.warn('agent_llm_fallback', { reason, tokens: spent });
        ctx.reportUsage({ tokens: spent, model: FALLBACK_MODEL });
        return agent.handle(invocation, withSpentTokens(ctx, spent));
      }
    },
  });
}

function promptFor(
  invocation: AgentInvocation,
  agent: AgentDefinition,
  contractInstruction: string,
  job: string,
): ChatMessage[] {
  const system = [
    `You are ${agent.registration.displayName}: ${agent.registration.summary}`,
    job,
    invocation.instructions ?? contractInstruction,
    'Answer with one JSON object keyed by output facet name that matches the response schema exactly. Ground every claim in the inputs; invent no figures.',
  ]
    .filter(Boolean)
    .join('\n\n');
  const user = JSON.stringify({
    objective: invocation.context.objective,
    specialInstructions: invocation.context.specialInstructions ?? [],
    inputs: invocation.inputs,
    outputFacets: invocation.outputFacets,
    // The full contract (caller bindings included) and, on a repair attempt, what to fix.
    ...(invocation.outputSchema ? { outputSchema: invocation.outputSchema } : {}),
    ...(invocation.feedback ? { fixTheseErrorsFromAttempt: invocation.feedback } : {}),
  });
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}

/** The fallback's usage report, plus what the failed LLM calls cost. */
function withSpentTokens(ctx: AgentContext, spent: number): AgentContext {
  return {
    ...ctx,
    reportUsage: (usage: AgentUsage) =>
      ctx.reportUsage({ ...usage, tokens: (usage.tokens ?? 0) + spent, model: FALLBACK_MODEL }),
  };
}
