/** One facet-level validation failure, as the facet contract compiler reports it. */
export interface FacetIssue {
  facet: string;
  pointer: string;
  keyword: string;
  message: string;
}

export interface AgentErrorOptions {
  retryable?: boolean;
  details?: unknown;
  cause?: unknown;
}

/**
 * An error with a stable `code` that says whether retrying can help. Handlers throw it (or a
 * subclass) to control what the executor sees; anything else becomes `agent_failed`, retryable.
 */
export class AgentError extends Error {
  override name = 'AgentError';
  readonly retryable: boolean;
  readonly details?: unknown;

  constructor(
    readonly code: string,
    message: string,
    options: AgentErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryable = options.retryable ?? false;
    this.details = options.details;
  }
}

/** The invocation is malformed or its inputs break the agent's input contract: never handed to the handler. */
export class InvalidInputError extends AgentError {
  override name = 'InvalidInputError';
  constructor(
    message: string,
    readonly issues: FacetIssue[] = [],
  ) {
    super('invalid_input', message, { retryable: false, details: { errors: issues } });
  }
}

/** The handler's output breaks the requested output contract: never replied as output. */
export class InvalidOutputError extends AgentError {
  override name = 'InvalidOutputError';
  constructor(
    message: string,
    readonly issues: FacetIssue[],
  ) {
    super('invalid_output', message, { retryable: true, details: { errors: issues } });
  }
}

/** The handler threw something that is not an AgentError. */
export class AgentFailedError extends AgentError {
  override name = 'AgentFailedError';
  constructor(cause: unknown) {
    super('agent_failed', `agent handler failed: ${describe(cause)}`, { retryable: true, cause });
  }
}

/** The instance is draining: another instance (or a later attempt) should take the invocation. */
export class AgentStoppingError extends AgentError {
  override name = 'AgentStoppingError';
  constructor() {
    super('agent_stopping', 'agent instance is stopping', { retryable: true });
  }
}

/** The registry refused the registration; retrying the same payload will not help. */
export class RegistrationRejectedError extends AgentError {
  override name = 'RegistrationRejectedError';
  constructor(code: string, message: string, details?: unknown, cause?: unknown) {
    super(code, `registration rejected: ${message}`, { retryable: false, details, cause });
  }
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
