/**
 * Span attribute names: OTel semantic conventions where one exists, `flex.*` for the rest. Values
 * are ids, counts and codes, never payloads or inputs (secrets are references everywhere past the
 * gateway's normalizer, and even those stay out of spans).
 */
export const ATTR = {
  runId: 'flex.run.id',
  planVersion: 'flex.plan.version',
  planAttempt: 'flex.plan.attempt',
  planReason: 'flex.plan.reason',
  nodeId: 'flex.node.id',
  nodeAttempt: 'flex.node.attempt',
  capabilityId: 'flex.capability.id',
  policyId: 'flex.policy.id',
  policyAction: 'flex.policy.action',
  policyDecision: 'flex.policy.decision',
  hitlRequestId: 'flex.hitl.request_id',
  hitlDecision: 'flex.hitl.decision',
  eventType: 'flex.event.type',
  eventCount: 'flex.event.count',
  streamId: 'flex.stream.id',
  outcome: 'flex.outcome',
  service: 'flex.service',
  // https://opentelemetry.io/docs/specs/semconv/messaging/
  messagingSystem: 'messaging.system',
  messagingOperation: 'messaging.operation.type',
  messagingDestination: 'messaging.destination.name',
  messagingBatchCount: 'messaging.batch.message_count',
  // https://opentelemetry.io/docs/specs/semconv/database/
  dbSystem: 'db.system.name',
  dbOperation: 'db.operation.name',
  // https://opentelemetry.io/docs/specs/semconv/gen-ai/
  genAiOperation: 'gen_ai.operation.name',
  genAiProvider: 'gen_ai.provider.name',
  genAiRequestModel: 'gen_ai.request.model',
  genAiResponseModel: 'gen_ai.response.model',
  genAiInputTokens: 'gen_ai.usage.input_tokens',
  genAiOutputTokens: 'gen_ai.usage.output_tokens',
  // https://opentelemetry.io/docs/specs/semconv/http/
  httpMethod: 'http.request.method',
  httpRoute: 'http.route',
  httpStatus: 'http.response.status_code',
} as const;
