import { eventsWildcard, eventTypeWildcard } from './subjects';

/** Exactly one of the two is set, so a config that had the other one loses it on update. */
export interface ConsumerFilter {
  filter_subject: string | undefined;
  filter_subjects: string[] | undefined;
}

/**
 * What a durable handling `types` (undefined: every type) should receive. One type: that type's
 * subjects. Several: each type's subjects where the server takes `filter_subjects` (2.10+),
 * otherwise every event, the consumer acking the others unseen as it always has.
 */
export function consumerFilter(
  prefix: string,
  types: ReadonlySet<string> | undefined,
  multipleFilters: boolean,
): ConsumerFilter {
  const wanted = [...(types ?? [])].sort().map((type) => eventTypeWildcard(prefix, type));
  if (wanted.length === 1) return { filter_subject: wanted[0], filter_subjects: undefined };
  if (wanted.length > 1 && multipleFilters) return { filter_subject: undefined, filter_subjects: wanted };
  return { filter_subject: eventsWildcard(prefix), filter_subjects: undefined };
}

const VERSION = /^v?(\d+)\.(\d+)\.(\d+)/;

/**
 * Whether a server of this version (the `version` of its INFO) takes a consumer's
 * `filter_subjects`: 2.10.0 and later, pre-releases of 2.10 included. Anything unreadable says no:
 * the fallback only costs deliveries.
 */
export function supportsMultipleFilters(version: string | undefined): boolean {
  const match = VERSION.exec(version?.trim() ?? '');
  if (!match) return false;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  return major > 2 || (major === 2 && minor >= 10);
}
