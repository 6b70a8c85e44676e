import { SetMetadata } from '@nestjs/common';
import type { z } from 'zod';

export const API_DOC_KEY = 'flex:api-doc';

/** What the OpenAPI document says about a route beyond what Nest knows (its path, method, roles). */
export interface ApiDocInput {
  summary: string;
  /** Query parameters the route reads. */
  query?: readonly string[];
  /** Request headers the route reads (besides Authorization). */
  headers?: readonly string[];
  /** The JSON body: its schema (as the contracts declare it) and an example of a valid one. */
  body?: { schema?: z.ZodType; example: unknown; required: boolean };
  /** The answer is an SSE stream (text/event-stream). */
  sse?: boolean;
}

/** Describe a route for `GET openapi.json` (api-doc.ts reads it). */
export const ApiDoc = (doc: ApiDocInput) => SetMetadata(API_DOC_KEY, doc);
