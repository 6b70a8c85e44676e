import { SetMetadata } from '@nestjs/common';
import type { z } from 'zod';

export const API_DOC_KEY = 'flex:api-doc';

/**
 * What the OpenAPI document says about a route beyond what Nest knows (its path, method, roles).
 * Schemas are the zod contracts the route parses and answers with: the document is generated
 * from them, so it says what the code checks.
 */
export interface ApiDocInput {
  summary: string;
  description?: string;
  /** The query: the object schema the route parses it with (each property is a parameter). */
  query?: z.ZodObject;
  /** Request headers the route reads (besides Authorization). */
  headers?: readonly string[];
  /** The JSON body: its schema and an example of a valid one. */
  body?: { schema: z.ZodType; example: unknown; required: boolean };
  /** The JSON body of the success answer. */
  response?: z.ZodType;
  /** The success answer is not JSON: an SSE stream of FlexEvent frames, an HTML page, plain text. */
  produces?:
    'text/event-stream' | 'text/html' | 'text/plain' | 'application/octet-stream' | 'application/x-ndjson';
  /**
   * Answers besides success and the ones every route of its kind may give: status → when (the
   * body is the API's error), or when and the body's schema.
   */
  errors?: Readonly<Record<number, string | { description: string; schema: z.ZodType }>>;
}

/** Describe a route for `GET openapi.json` (the gateway's openapi.document.ts reads it). */
export const ApiDoc = (doc: ApiDocInput) => SetMetadata(API_DOC_KEY, doc);
