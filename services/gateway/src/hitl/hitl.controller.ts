import { Controller, HttpCode, Inject, Post, Req, UseGuards } from '@nestjs/common';
import { HitlResolveRequestSchema, HitlResolveResponseSchema, runStreamId } from '@flex/contracts';
import {
  decideHitlResolve,
  enforcedConstraintErrors,
  nodeOutputErrors,
  type OutputIssue,
  type RunState,
  withFollowUps,
} from '@flex/run-model';
import { RUNTIME, type ServiceRuntime } from '@flex/runtime';
import { typedEvent } from '@flex/event-store';
import { ATTR, contextOf, recordSpan } from '@flex/tracing';
import { AuthGuard, Roles, type AuthedRequest } from '../auth/auth.guard';
import { controlCommand, parseBody, runLimits } from './run-command';
import { ApiDoc } from '../openapi/api-doc.decorator';

@Controller('api/v1/flex/hitl')
@UseGuards(AuthGuard)
export class HitlController {
  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  /**
   * Record an operator's decision (`hitl_resolved`); the executor runs the follow-up, at once, or
   * on `run.resume` when the run is paused (`takesEffect: 'on_resume'`). Resolving twice is 409; a
   * node-output payload that breaks the node's output contract is a 400 recorded as
   * `validation_error`, and the request stays open.
   */
  @Post('resolve')
  @HttpCode(200)
  @Roles('operator')
  @ApiDoc({
    summary: "Record an operator's decision on a HITL request",
    body: {
      schema: HitlResolveRequestSchema,
      example: { runId: 'run_0123', requestId: 'hitl-1', decision: 'approve', note: 'looks right' },
      required: true,
    },
    response: HitlResolveResponseSchema,
    errors: { 404: 'no such run or request', 409: 'already resolved, or the run has ended' },
  })
  async resolve(@Req() req: AuthedRequest) {
    const request = parseBody(HitlResolveRequestSchema, req.body);
    const streamId = runStreamId(request.runId);
    const { appended, state } = await controlCommand(
      this.runtime,
      { streamId, actor: req.principal.id, span: 'hitl.resolve' },
      (s) =>
        withFollowUps(
          s,
          decideHitlResolve(
            s,
            request,
            req.principal.id,
            outputErrors(s, request.requestId, request.payload),
          ),
          runLimits(this.runtime),
          this.runtime.clock.now(),
        ),
    );
    const recorded = state.status === 'none' ? undefined : state.hitl[request.requestId];
    const takesEffect = recorded?.status === 'decided' ? 'on_resume' : 'now';
    if (appended.length > 0 && recorded?.status !== 'pending')
      await traceHitlWait(this.runtime, streamId, state, request);
    return {
      ok: true,
      runId: request.runId,
      requestId: request.requestId,
      decision: request.decision,
      takesEffect,
      position: appended[0]?.position,
    };
  }
}

/**
 * The wait on a human as one span of the run's trace, from its `hitl_request` to this decision
 * (recorded now: a wait can outlast any process). Only for a run that has a trace.
 */
async function traceHitlWait(
  runtime: ServiceRuntime,
  streamId: string,
  state: RunState,
  request: { requestId: string; decision: string },
): Promise<void> {
  if (state.status === 'none' || !state.traceparent) return;
  const raised = (await runtime.store.readStream(streamId)).find((e) => {
    const event = typedEvent(e);
    return event?.type === 'hitl_request' && event.payload.requestId === request.requestId;
  });
  if (!raised) return;
  const pending = state.hitl[request.requestId];
  recordSpan('hitl.wait', {
    parent: contextOf(state.traceparent),
    startTime: new Date(raised.timestamp),
    attributes: {
      [ATTR.runId]: state.runId,
      [ATTR.hitlRequestId]: request.requestId,
      [ATTR.hitlDecision]: request.decision,
      ...(pending?.policyId ? { [ATTR.policyId]: pending.policyId } : {}),
      ...(pending?.nodeId ? { [ATTR.nodeId]: pending.nodeId } : {}),
    },
  });
}

/**
 * For a node-output request: what the node's contract says about the payload, as for an agent's
 * output: the compiled facet contract, the caller-contract bindings, then the hard constraints the
 * node enforces.
 */
function outputErrors(state: RunState, requestId: string, payload: unknown): OutputIssue[] {
  if (state.status === 'none' || !state.plan) return [];
  const pending = state.hitl[requestId];
  if (
    pending?.mode !== 'node_output' ||
    !pending.nodeId ||
    !payload ||
    typeof payload !== 'object' ||
    Array.isArray(payload)
  )
    return [];
  const node = state.plan.nodes.find((n) => n.id === pending.nodeId);
  if (!node) return [];
  const errors = nodeOutputErrors(node, payload);
  return errors.length ? errors : enforcedConstraintErrors(state, node, payload as Record<string, unknown>);
}
