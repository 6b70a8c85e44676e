import type { JsonSchema } from '../../verdict';
import { domainOf, objectDomain, type Domain } from '../index';

/** Root data with one property per schema: always present, or maybe present when listed in `maybe`. */
export function dataOf(props: Readonly<Record<string, JsonSchema>>, maybe: readonly string[] = []): Domain {
  const entries = Object.entries(props).map(([key, schema]) => {
    const present = maybe.includes(key) ? ('maybe' as const) : ('always' as const);
    return [key, { domain: domainOf([schema]), present }] as const;
  });
  return objectDomain(Object.fromEntries(entries));
}
