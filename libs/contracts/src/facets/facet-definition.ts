import { z } from 'zod';
import { JsonObjectSchema } from '../shared/json';

/** A facet's machine key: an identifier such as `writerBrief` (1..64 characters). */
export const FacetNameSchema = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, {
  error: 'expected a facet name: a letter, then up to 63 letters, digits or _',
});

/**
 * Which way a facet flows: `input` facets are supplied by the caller and consumed by
 * capabilities, `output` facets are produced by capabilities, `bidirectional` ones are produced
 * by one node and consumed by the next (spec 003 §11 writes these as "input/output").
 */
export const FacetDirectionalitySchema = z.enum(['input', 'output', 'bidirectional']);

/** See {@link FacetDirectionalitySchema}. */
export type FacetDirectionality = z.infer<typeof FacetDirectionalitySchema>;

/**
 * A reusable slice of meaning that node contracts are assembled from (spec 003 §5.6): a JSON
 * Schema fragment for the facet's value, plus the semantics agents are told. `propertyKey` lets
 * several facets share one property of the compiled schema (default: the facet name).
 */
export const FacetDefinitionSchema = z.strictObject({
  name: FacetNameSchema,
  title: z.string().min(1).max(200),
  description: z.string().min(1).max(2_000),
  schema: JsonObjectSchema,
  semantics: z.string().min(1).max(4_000),
  metadata: z
    .strictObject({
      version: z.string().min(1).max(64),
      directionality: FacetDirectionalitySchema,
      dependencies: z.array(FacetNameSchema).optional(),
      /**
       * The facet carries the caller's secrets: an invocation of a capability declaring it as an
       * input gets the values of the secret references inside it (no other facet ever does). Only
       * an `input` facet can be sensitive, so no agent can produce one.
       */
      sensitive: z.boolean().optional(),
    })
    .refine((m) => m.sensitive !== true || m.directionality === 'input', {
      error: 'a sensitive facet must be an input facet',
      path: ['sensitive'],
    }),
  propertyKey: FacetNameSchema.optional(),
});

/** See {@link FacetDefinitionSchema}. */
export type FacetDefinition = z.infer<typeof FacetDefinitionSchema>;

/** True when a facet may be used in the given direction of a capability contract. */
export function facetAllows(
  definition: Pick<FacetDefinition, 'metadata'>,
  direction: 'input' | 'output',
): boolean {
  const d = definition.metadata.directionality;
  return d === 'bidirectional' || d === direction;
}
