import type { CapabilityRegistration } from '@flex/contracts';
import type { AgentLogger } from './logger';
import type { AgentLogLine } from './run-log';

/** What the executor sends on `agentInvokeSubject(prefix, capabilityId)`. */
export interface AgentInvocation {
  runId: string;
  nodeId: string;
  /** 1 on the first attempt of a node; a retry gets a new attempt and so a new idempotency key. */
  attempt: number;
  /** `runId:nodeId:attempt`: the same key twice is the same invocation, redelivered. */
  idempotencyKey: string;
  capabilityId: string;
  /** Input facet values keyed by facet name: only facets the capability declares. */
  inputs: Record<string, unknown>;
  /** Output facets this node needs: a subset of the capability's output contract. */
  outputFacets: string[];
  /** The node's merged system instruction (facet semantics, planner guidance). */
  instructions?: string;
  context: AgentInvocationContext;
  /** When the executor stops waiting: epoch milliseconds (a value below 1e12 is read as a duration from receipt). */
  deadlineMs?: number;
  /**
   * The node's full output contract: the compiled schema of `outputFacets`, with what the caller's
   * contract binds for a facet added as `allOf` under its property (exact counts, length bounds).
   */
  outputSchema?: Record<string, unknown>;
  /**
   * When this call is one lane of a larger set: it produces the items `offset`… of `total` for
   * `facet` (other calls produce the rest from the same inputs): make this share differ from theirs.
   */
  part?: { facet: string; offset: number; total: number };
  /** On a repair attempt: what an earlier attempt's output broke, to fix this time. */
  feedback?: AgentFeedback;
}

/** The errors an earlier attempt of the same node was refused for. */
export interface AgentFeedback {
  /** The attempt the errors are about. */
  attempt: number;
  errors: AgentFeedbackError[];
}

/** One error: a JSON pointer into the output (or `/constraints/<id>`), the rule broken, and a message. */
export interface AgentFeedbackError {
  path: string;
  keyword?: string;
  message: string;
}

/** The slice of the task envelope the agent sees. */
export interface AgentInvocationContext {
  objective: string;
  specialInstructions?: string[];
  inputs?: Record<string, unknown>;
}

export interface AgentUsage {
  tokens?: number;
  costCents?: number;
  model?: string;
}

/** The reply to an invocation: output facet values keyed by facet name. */
export interface AgentResult {
  output: Record<string, unknown>;
  usage?: AgentUsage;
  /** What the handler logged at `info` and above (see RunLogCollector): recorded on the run. */
  logs?: AgentLogLine[];
}

/** What a handler gets besides the invocation. */
export interface AgentContext {
  readonly capabilityId: string;
  readonly instanceId: string;
  /** Key side effects by it: the same key is the same invocation. */
  readonly idempotencyKey: string;
  /** Epoch ms after which nobody waits for the reply, when the executor set one. */
  readonly deadline?: number;
  /** Aborted when the deadline passes. */
  readonly signal: AbortSignal;
  /** The agent's logger; lines at `info` and above are also returned with the answer (the run's `log` events). */
  readonly logger: AgentLogger;
  /** Reported back to the executor with the output (the last call wins). */
  reportUsage(usage: AgentUsage): void;
}

export type AgentHandler = (
  invocation: AgentInvocation,
  ctx: AgentContext,
) => Promise<Record<string, unknown>>;

/** An agent is a registration plus a handler. */
export interface AgentDefinition {
  readonly registration: CapabilityRegistration;
  readonly handle: AgentHandler;
}

/** The registry's answer to a registration. */
export interface RegistrationAck {
  ok: true;
  capabilityId: string;
  instanceId: string;
  status: string;
}
