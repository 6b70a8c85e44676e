import { ABSENT, ANY_JSON, domain, withAbsent, type Domain } from './domain';

/** Whether a property of the data is always there, may be missing, or is never there. */
export type Presence = 'always' | 'maybe' | 'never';

/** One property of the data a rule reads. */
export interface PropertyDomain {
  readonly domain: Domain;
  readonly present: Presence;
}

export interface ObjectDomainOptions {
  /** The values of properties not listed; 'none' (the default) when there are no others. */
  readonly others?: Domain | 'none';
}

/**
 * The data a rule reads: an object with the listed properties. Unlisted properties do not exist
 * unless `options.others` says what they may hold.
 */
export function objectDomain(
  properties: Readonly<Record<string, PropertyDomain>>,
  options: ObjectDomainOptions = {},
): Domain {
  const map = new Map<string, Domain>();
  for (const [key, p] of Object.entries(properties)) {
    const mayBeMissing = p.present === 'maybe' || p.domain.absent;
    map.set(key, p.present === 'never' ? ABSENT : withAbsent(p.domain, mayBeMissing));
  }
  const others = options.others === undefined || options.others === 'none' ? undefined : options.others;
  return domain({ object: others === undefined ? { properties: map } : { properties: map, others } });
}

/** A property that is not there: `var` on it gives null, or its default. */
export function absentDomain(): Domain {
  return ABSENT;
}

/** Any JSON value at all (what the empty schema admits). */
export function anyDomain(): Domain {
  return ANY_JSON;
}
