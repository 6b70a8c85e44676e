import type { FacetDefinition } from '../facet-definition';

/**
 * The caller's secrets for the agents that need them (not in spec 003 §11: Flex's addition, see
 * docs/security/secrets.md). `inputs.credentials` matches the default secret key pattern, so the
 * whole object is kept in the secret store and the event log holds a reference; an invocation of a
 * capability that declares this facet gets the values, no other invocation does.
 */
const credentials: FacetDefinition = {
  name: 'credentials',
  title: 'Credentials',
  description: 'Named secrets (API keys, tokens, passwords) an agent needs to act for the caller.',
  schema: { type: 'object', maxProperties: 50 },
  semantics:
    'Use each credential only to call the service it is for. Never repeat one in an output or an ' +
    'error: an output holding one is refused.',
  metadata: { version: 'v1', directionality: 'input', sensitive: true },
};

/** Facets whose values are secrets (see `metadata.sensitive`). */
export const CREDENTIAL_FACETS: readonly FacetDefinition[] = [credentials];
