import { isFlexEventType, type EventPayload, type FlexEventType } from '@flex/contracts';
import type { StoredEvent } from './types';

/**
 * A stored event as the union of its known types: `switch (event.type)` narrows `event.payload`.
 * Every payload was type-checked when it was decided (`DecidedFlexEvent`) and is upcast to today's
 * shape on read (`toStoredEvent`), so at this boundary only the type tag needs checking.
 */
export type TypedEvent = { [T in FlexEventType]: StoredEvent<T, EventPayload<T>> }[FlexEventType];

/** The stored event of type `T`. */
export type TypedEventOf<T extends FlexEventType> = Extract<TypedEvent, { type: T }>;

/** The event as the typed union, or `undefined` for a type this version does not know. */
export function typedEvent(event: StoredEvent): TypedEvent | undefined {
  return isFlexEventType(event.type) ? (event as TypedEvent) : undefined;
}

/** The payload of an event known to be of type `T`: the tag is checked, a mismatch is a bug and throws. */
export function payloadOf<T extends FlexEventType>(event: StoredEvent, type: T): EventPayload<T> {
  if (event.type !== type) throw new TypeError(`expected a ${type} event, got ${event.type} (${event.id})`);
  return (event as StoredEvent<T, EventPayload<T>>).payload;
}
