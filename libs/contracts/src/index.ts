// @flex/contracts: the one source of truth for every shape crossing a service boundary.

// Shared primitives
export { LIMITS } from './shared/limits';
export { type Result, ok, err } from './shared/result';
export { formatIssuePath } from './shared/issue-path';
export {
  type JsonValue,
  JsonObjectSchema,
  JsonValueSchema,
  jsonProblem,
  nestingExceeds,
} from './shared/json';
export {
  findUnstorableText,
  unstorableTextReason,
  toStorableText,
  checkStorableText,
  toJsonPointer,
  type UnstorableText,
} from './shared/storable-text';
export {
  IdentifierSchema,
  Sha256HexSchema,
  IsoTimestampSchema,
  ShortTextSchema,
  LongTextSchema,
  AttemptSchema,
  PlanVersionSchema,
  UnitScoreSchema,
} from './shared/identifiers';

// Task envelope, output contract, policies
export {
  ConstraintLevelSchema,
  type ConstraintLevel,
  ConstraintSpecSchema,
  type ConstraintSpec,
} from './envelope/constraint-spec';
export {
  JsonSchemaObjectSchema,
  OutputContractSchema,
  type OutputContract,
} from './envelope/output-contract';
export { NodeSelectorSchema, type NodeSelector } from './envelope/node-selector';
export {
  POLICY_TRIGGER_KINDS,
  NODE_TRIGGER_KINDS,
  PolicyTriggerSchema,
  type PolicyTrigger,
  type PolicyTriggerKind,
} from './envelope/policy-trigger';
export {
  ACTION_TYPES,
  type ActionType,
  ActionSchema,
  type Action,
  type ReplanAction,
  type HitlAction,
  type FailAction,
  type PauseAction,
  type EmitAction,
} from './envelope/action';
export { RuntimePolicySchema, type RuntimePolicy } from './envelope/runtime-policy';
export {
  PlannerTopologySchema,
  PlannerSelectionSchema,
  PlannerOptimisationSchema,
  PlannerPolicySchema,
  type PlannerPolicy,
} from './envelope/planner-policy';
export { TaskPoliciesSchema, type TaskPolicies } from './envelope/task-policies';
export { TaskEnvelopeSchema, type TaskEnvelope, type TaskEnvelopeInput } from './envelope/task-envelope';

// JSONLogic
export { JSONLOGIC_OPERATORS, type JsonLogicOperator, validateJsonLogic } from './jsonlogic/jsonlogic-rules';
export { JsonLogicRuleSchema } from './jsonlogic/jsonlogic-rule-schema';
export { rewriteBetween } from './jsonlogic/between-rewrite';

// PolicyNormalizer and API requests
export {
  ValidationIssueSchema,
  type ValidationIssue,
  NormalizationChangeSchema,
  type NormalizationChange,
} from './normalizer/validation-issue';
export {
  normalizeEnvelope,
  type NormalizeEnvelopeResult,
  type NormalizeEnvelopeOptions,
} from './normalizer/normalize-envelope';
export {
  normalizeRuntimePolicies,
  type NormalizeRuntimePoliciesResult,
} from './normalizer/normalize-runtime-policies';

// Secrets: the envelope's marking, and the references the event log holds in their place
export {
  SECRET_REF_KEY,
  SENSITIVE_MARK_KEY,
  DEFAULT_SECRET_KEY_PATTERN,
  MAX_SECRETS_PER_RUN,
  SecretIdSchema,
  SecretRefSchema,
  type SecretRef,
  isSecretRef,
  secretRefIds,
  replaceSecretRefs,
} from './secrets/secret-ref';
export { type ExtractedSecret } from './secrets/extract-secrets';
export { zodIssuesToValidationIssues } from './normalizer/zod-issues';
export {
  ResumeRequestSchema,
  type ResumeRequest,
  HitlDecisionSchema,
  type HitlDecision,
  HitlResolveRequestSchema,
  type HitlResolveRequest,
  CancelRunRequestSchema,
  type CancelRunRequest,
  PauseRunRequestSchema,
  type PauseRunRequest,
  RunEventsQuerySchema,
  type RunEventsQuery,
} from './api/api-requests';
export {
  RUN_STATUSES,
  RunStatusSchema,
  type RunStatus,
  RUNS_PAGE_MAX,
  RUNS_PAGE_DEFAULT,
  RunListQuerySchema,
  type RunListQuery,
  RunFailureSchema,
  RunSummarySchema,
  type RunSummary,
  RunListResponseSchema,
  type RunListResponse,
  FacetValueSchema,
  PlanSnapshotSchema,
  type PlanSnapshot,
  PlanVersionViewSchema,
  type PlanVersionView,
  RunNodeViewSchema,
  RunHitlRequestViewSchema,
  RunDetailSchema,
  type RunDetail,
} from './api/api-runs';
export {
  RunDetailQuerySchema,
  type RunDetailQuery,
  ChainVerifyQuerySchema,
  type ChainVerifyQuery,
  ChainHeadSchema,
  ChainProblemSchema,
  ChainVerifyResponseSchema,
  type ChainVerifyResponse,
  RunArchiveSchema,
  type RunArchive,
} from './api/api-audit';
export {
  ErrorResponseSchema,
  CancelRunResponseSchema,
  type CancelRunResponse,
  PauseRunResponseSchema,
  type PauseRunResponse,
  HitlResolveResponseSchema,
  PolicyTriggerResponseSchema,
  CapabilityInstanceViewSchema,
  CapabilityViewSchema,
  CapabilityListResponseSchema,
  CapabilityRegisteredResponseSchema,
  AssignOwnerRequestSchema,
  OwnerAssignedResponseSchema,
  ProjectionsRebuiltResponseSchema,
  HealthResponseSchema,
  ReadinessCheckSchema,
  ReadinessResponseSchema,
  type ReadinessResponse,
} from './api/api-responses';

export {
  WHAT_IF_RUNS_MAX,
  WHAT_IF_RUNS_DEFAULT,
  PolicyWhatIfRequestSchema,
  type PolicyWhatIfRequest,
  WhatIfRunSchema,
  PolicyWhatIfResponseSchema,
  type PolicyWhatIfResponse,
} from './api/api-what-if';

// Plans
export { PLAN_NODE_KINDS, PlanNodeKindSchema, type PlanNodeKind } from './plan/plan-node-kind';
export {
  FacetProvenanceSchema,
  type FacetProvenance,
  BranchInfoSchema,
  RetryPolicySchema,
  NodeBindingsSchema,
  type NodeBindings,
  MergeStrategySchema,
  type MergeStrategy,
  PlanNodeSchema,
  type PlanNode,
} from './plan/plan-node';
export {
  DeterminismModeSchema,
  type DeterminismMode,
  PlanEdgeSchema,
  type PlanEdge,
  TokenUsageSchema,
  PlanMetadataSchema,
  type PlanMetadata,
  PlanGraphSchema,
  type PlanGraph,
} from './plan/plan-graph';
export {
  PlanNodeSummarySchema,
  type PlanNodeSummary,
  summarizePlanNode,
  summarizePlan,
} from './plan/plan-node-summary';

// Facets
export {
  FacetNameSchema,
  FacetDirectionalitySchema,
  type FacetDirectionality,
  FacetDefinitionSchema,
  type FacetDefinition,
  facetAllows,
} from './facets/facet-definition';
export {
  FacetCatalog,
  FacetCatalogError,
  type FacetCatalogErrorCode,
  getFacetCatalog,
} from './facets/facet-catalog';

// Capabilities
export {
  AgentTypeSchema,
  type AgentType,
  HeartbeatSchema,
  CapabilityRegistrationSchema,
  type CapabilityRegistration,
  type CapabilityRegistrationInput,
  CapabilityStatusSchema,
  type CapabilityStatus,
} from './capabilities/capability-registration';

// Diagnostics and decisions
export {
  DiagnosticCauseSchema,
  type DiagnosticCause,
  DiagnosticSeveritySchema,
  type DiagnosticSeverity,
  PlanDiagnosticSchema,
  type PlanDiagnostic,
} from './diagnostics/plan-diagnostic';
export {
  DiagnosticsStatusSchema,
  type DiagnosticsStatus,
  DiagnosticsBundleSchema,
  type DiagnosticsBundle,
  AcceptedDiagnosticsBundleSchema,
  RejectedDiagnosticsBundleSchema,
  ProofVerdictSchema,
  type ProofVerdict,
  deriveDiagnosticsStatus,
  bundleDiagnostics,
} from './diagnostics/diagnostics-bundle';
export { DecisionContractSchema, type DecisionContract } from './diagnostics/decision-contract';

// Planner I/O (spec 004)
export {
  PlannerErrorCode,
  PlannerErrorCodeSchema,
  PlannerErrorSchema,
  type PlannerError,
  PlannerOutputSchema,
  type PlannerOutput,
} from './planner/planner-io';
export {
  Spec004StepSchema,
  type Spec004Step,
  Spec004PlanMetadataSchema,
  Spec004PlanSchema,
  type Spec004Plan,
} from './planner/spec004-plan';
export { planGraphToSteps, PlanGraphShapeError } from './planner/plan-graph-to-steps';
export {
  RegistryEntrySchema,
  type RegistryEntry,
  RegistrySnapshotSchema,
  type RegistrySnapshot,
  registrySnapshotOf,
} from './planner/registry-snapshot';

// Events
export {
  PrincipalRoleSchema,
  type PrincipalRole,
  StartPayloadSchema,
  PlannerFallbackSchema,
  PlanProvenanceSchema,
  PlanRequestedPayloadSchema,
  PlanDraftedPayloadSchema,
  PlanRejectedPayloadSchema,
  PlanGeneratedPayloadSchema,
  PlanUpdatedPayloadSchema,
} from './events/planning-payloads';
export {
  NodeStartPayloadSchema,
  NodeCompletePayloadSchema,
  NodeErrorPayloadSchema,
  ValidationErrorPayloadSchema,
  PolicyTriggeredPayloadSchema,
  HitlRequestPayloadSchema,
  HitlResolvedPayloadSchema,
  ReplanDeferredPayloadSchema,
  RunPausedPayloadSchema,
  RunResumedPayloadSchema,
  CustomEventPayloadSchema,
  CompletePayloadSchema,
  RunFailedPayloadSchema,
  RunCancelledPayloadSchema,
  LogPayloadSchema,
} from './events/execution-payloads';
export {
  CapabilityRegisteredPayloadSchema,
  CapabilityStatusChangedPayloadSchema,
  CapabilityDeregisteredPayloadSchema,
  CapabilityOwnerAssignedPayloadSchema,
  CapabilityOwnerSchema,
} from './events/capability-payloads';
export {
  EVENT_PAYLOAD_SCHEMAS,
  type FlexEventType,
  type EventPayload,
  type EventPayloadInput,
  type FlexEvent,
  RUN_EVENT_TYPES,
  CAPABILITY_EVENT_TYPES,
  TERMINAL_EVENT_TYPES,
  INTERNAL_EVENT_TYPES,
  type RunEventType,
  type CapabilityEventType,
  isFlexEventType,
  type EventPayloadError,
  parseEventPayload,
  runEvent,
  type DecidedRunEvent,
  type DecidedFlexEvent,
} from './events/event-catalog';
export {
  FlexEventFrameSchema,
  FlexEventFrameUnionSchema,
  STREAMED_EVENT_TYPES,
  type FlexEventFrame,
} from './events/event-frame';
export {
  runStreamId,
  capabilityStreamId,
  runIdFromStreamId,
  capabilityIdFromStreamId,
} from './events/stream-ids';

// Canonical JSON and hashing (RFC 8785)
export { canonicalCopy, canonicalJson, contentHash, CanonicalJsonError } from './canonical/canonical-json';
export type { CanonicalCopy } from './canonical/canonical-json';
export { upcastPayload } from './events/upcasters';
export {
  COPYWRITER_LINKEDIN_VARIANTS,
  QA_CONTENT_REVIEW,
  REFERENCE_INVENTORY,
  STRATEGY_BRIEFING,
} from './capabilities/reference-inventory';
