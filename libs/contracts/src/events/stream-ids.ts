const RUN_PREFIX = 'run-';
const CAPABILITY_PREFIX = 'capability-';

/** The event-store stream of a run. */
export function runStreamId(runId: string): string {
  return `${RUN_PREFIX}${runId}`;
}

/** The event-store stream of a capability. */
export function capabilityStreamId(capabilityId: string): string {
  return `${CAPABILITY_PREFIX}${capabilityId}`;
}

/** The run id of a run stream id, or `undefined` for any other stream. */
export function runIdFromStreamId(streamId: string): string | undefined {
  return streamId.startsWith(RUN_PREFIX) && streamId.length > RUN_PREFIX.length
    ? streamId.slice(RUN_PREFIX.length)
    : undefined;
}

/** The capability id of a capability stream id, or `undefined` for any other stream. */
export function capabilityIdFromStreamId(streamId: string): string | undefined {
  return streamId.startsWith(CAPABILITY_PREFIX) && streamId.length > CAPABILITY_PREFIX.length
    ? streamId.slice(CAPABILITY_PREFIX.length)
    : undefined;
}
