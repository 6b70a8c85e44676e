export type {
  ConsumeOptions,
  Consumer,
  DeadLetter,
  Delivery,
  DeliveryHandler,
  EventBus,
  EventLog,
  EventLogPage,
  IncomingRequest,
  Messaging,
  RequestOptions,
} from './types';
export {
  agentInvokeSubject,
  assertSubjectPrefix,
  decodeSubjectToken,
  encodeSubjectToken,
  eventStreamName,
  eventSubject,
  eventsWildcard,
  registryAgentSubject,
  registryAgentTokens,
  registrySubjects,
  runLogSubject,
  runLogsWildcard,
  serviceLogsWildcard,
  logsWildcard,
  streamEventsWildcard,
  type RegistryAgentVerb,
  type RegistrySubjects,
} from './subjects';
export {
  assertIdentityName,
  identityInboxPrefix,
  natsConnectionOptions,
  type NatsAuthOptions,
} from './nats-connection';
export {
  BusClosedError,
  BusDisconnectedError,
  InvalidBusOptionsError,
  InvalidSubjectTokenError,
  isRetryable,
  MalformedMessageError,
  MessagingError,
  NoRespondersError,
  PermissionDeniedError,
  PublishFailedError,
  PullRefusedError,
  RemoteError,
  RequestTimeoutError,
  toWireError,
  type WireError,
} from './errors';
export {
  FIRST_UNREACHABLE_WAIT_MS,
  isUnreachable,
  nextUnreachableWait,
  type UnreachableWaitInput,
} from './unreachable';
export { retryDelayMs } from './consume-options';
export type { BusLogger } from './logger';
export { NatsEventBus, type NatsEventBusOptions } from './nats-event-bus';
export {
  StoreBackedEventBus,
  CHECKPOINT_PREFIX,
  type StoreBackedEventBusOptions,
} from './store-backed-event-bus';
export { NatsMessaging, type NatsMessagingOptions } from './nats-messaging';
export { InProcessMessaging } from './in-process-messaging';
export {
  FlexEventsTransport,
  FLEX_EVENTS_TRANSPORT,
  type FlexEventsTransportOptions,
} from './flex-events.transport';
export { FlexEventContext } from './flex-event.context';
export { FlexEventErrorFilter } from './flex-event-error.filter';
