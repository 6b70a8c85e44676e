import type { PlannerError, PlannerOutput } from '@flex/contracts';
import { matchesAny } from '../plan/capability-scoring';
import {
  isPlannerError,
  plannerError,
  plannerOutput,
  type Planner,
  type PlannerRequest,
} from '../plan/planner';
import { chatCompletion, type ChatMessage, type ChatResult } from './chat-client';
import { compileLlmPlan } from './llm-plan.compiler';
import { LLM_PLAN_RESPONSE_FORMAT, LlmPlanSchema } from './llm-plan.schema';
import { planningMessages, repairMessage } from './prompt';
import { ruleBasedFallback } from './rule-based-fallback';

export const LLM_PLANNER = { id: 'llm', version: '1.0.0', mode: 'structural' as const, perTokenCents: 0.003 };

export interface LlmPlannerOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Deadline of one HTTP call. */
  timeoutMs: number;
  /** How many answers to ask for when one cannot be used (the first included). */
  maxAnswers: number;
  maxRateLimitRetries: number;
  maxBackoffMs: number;
}

const DEFAULTS = { timeoutMs: 30_000, maxAnswers: 2, maxRateLimitRetries: 2, maxBackoffMs: 5_000 };

type Failure = { code: PlannerError['code']; reason: string; retryable: boolean };

/**
 * An LLM planner (spec 004 mode `structural`) over an OpenAI-compatible chat-completions API. Its
 * answer is validated and compiled into a PlanGraph; a timeout, a 429 that outlasts the backoff, or
 * answers that stay unusable fall back to the rule-based draft, which says why in
 * `metadata.fallbackReason`. Never throws.
 */
export class LlmPlanner implements Planner {
  readonly id = LLM_PLANNER.id;
  readonly version = LLM_PLANNER.version;
  readonly mode = LLM_PLANNER.mode;
  private readonly options: LlmPlannerOptions;

  constructor(options: Partial<LlmPlannerOptions> & Pick<LlmPlannerOptions, 'baseUrl' | 'model'>) {
    this.options = { ...DEFAULTS, ...options };
  }

  async plan(request: PlannerRequest): Promise<PlannerOutput | PlannerError> {
    try {
      const precheck = this.precheck(request);
      if (precheck) return precheck;
      return await this.ask(request);
    } catch (error) {
      return this.fallback(
        request,
        {
          code: 'PLANNER_INTERNAL',
          reason: `LLM planner failed: ${(error as Error).message}`,
          retryable: false,
        },
        { input: 0, output: 0 },
      );
    }
  }

  /** What no model can fix is answered before any call: an empty registry, a required capability that is not there. */
  private precheck(request: PlannerRequest): PlannerError | undefined {
    if (request.capabilities.length === 0)
      return plannerError('PLANNER_NO_CAPABILITIES', 'no capability is registered and active');
    const required = request.envelope.policies?.planner?.selection?.require ?? [];
    const missing = required.filter(
      (r) => !request.capabilities.some((c) => matchesAny(c.capabilityId, [r])),
    );
    if (missing.length) {
      return plannerError(
        'PLANNER_NO_CAPABILITIES',
        `required capability ${missing.join(', ')} is not registered and active`,
        { required: missing[0], missingRequired: missing },
      );
    }
    return undefined;
  }

  private async ask(request: PlannerRequest): Promise<PlannerOutput | PlannerError> {
    const messages: ChatMessage[] = planningMessages(request);
    const tokens = { input: 0, output: 0 };
    let problems: string[] = [];
    for (let answer = 1; answer <= this.options.maxAnswers; answer++) {
      const reply: ChatResult = await chatCompletion({
        ...this.options,
        messages,
        responseFormat: LLM_PLAN_RESPONSE_FORMAT,
      });
      tokens.input += reply.usage.input;
      tokens.output += reply.usage.output;
      if (!reply.ok) {
        if (reply.kind !== 'malformed') return this.fallback(request, failureOf(reply), tokens);
        problems = [reply.message];
        continue;
      }
      const parsed = parseAnswer(reply.content);
      if (parsed.ok) {
        const compiled = compileLlmPlan(parsed.value, request, {
          plannerId: this.id,
          plannerVersion: this.version,
          model: reply.model,
          tokens: { ...tokens },
          costCents: costCents(tokens),
        });
        if (compiled.ok) return plannerOutput(compiled.plan, { model: reply.model, answers: answer });
        problems = compiled.problems;
      } else {
        problems = parsed.problems;
      }
      messages.push(
        { role: 'assistant', content: reply.content.slice(0, 20_000) },
        repairMessage(problems.slice(0, 20)),
      );
    }
    return this.fallback(
      request,
      {
        code: 'PLANNER_MALFORMED_OUTPUT',
        reason: `unusable LLM answer: ${problems.slice(0, 3).join('; ')}`,
        retryable: true,
      },
      tokens,
    );
  }

  /** The rule-based draft for the same request, marked with why the LLM's was not used. */
  private fallback(
    request: PlannerRequest,
    failure: Failure,
    tokens: { input: number; output: number },
  ): PlannerOutput | PlannerError {
    const draft = ruleBasedFallback(request, `${failure.code}: ${failure.reason}`);
    if (isPlannerError(draft)) return draft;
    const spent = { model: this.options.model.slice(0, 500), tokens, costCents: costCents(tokens) };
    const plan = { ...draft.plan, metadata: { ...draft.plan.metadata, ...spent } };
    const error = plannerError(failure.code, failure.reason, { fallback: 'rule-based' }, failure.retryable);
    return plannerOutput(plan, { ...draft.metadata, plannerError: error });
  }
}

function parseAnswer(
  content: string,
): { ok: true; value: ReturnType<typeof LlmPlanSchema.parse> } | { ok: false; problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    return { ok: false, problems: ['the answer is not JSON'] };
  }
  const parsed = LlmPlanSchema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    problems: parsed.error.issues.slice(0, 20).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`),
  };
}

function failureOf(reply: Extract<ChatResult, { ok: false }>): Failure {
  if (reply.kind === 'rate_limited')
    return { code: 'PLANNER_RATE_LIMITED', reason: reply.message, retryable: true };
  if (reply.kind === 'timeout') return { code: 'PLANNER_TIMEOUT', reason: reply.message, retryable: true };
  return { code: 'PLANNER_INTERNAL', reason: reply.message, retryable: true };
}

const costCents = (tokens: { input: number; output: number }) =>
  Math.round((tokens.input + tokens.output) * LLM_PLANNER.perTokenCents * 1e6) / 1e6;
