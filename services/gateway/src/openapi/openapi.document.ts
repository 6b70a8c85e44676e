import { RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { z } from 'zod';
import { ROLES_KEY } from '../auth/auth.guard';
import { API_DOC_KEY, type ApiDocInput } from './api-doc.decorator';

/** One route of the API, as the controllers declare it. */
export interface Route {
  method: string;
  /** OpenAPI form: `/api/v1/flex/runs/{id}/events`. */
  path: string;
  operationId: string;
  /** Roles allowed (admin always is); `undefined`: public, no token. */
  roles?: string[];
  doc?: ApiDocInput;
}

/**
 * Every route of `controllers`, read from the metadata Nest routes by, so a route cannot be
 * served without being in the document (and in the fuzz test, which reads the document).
 */
export function routesOf(controllers: readonly Type[]): Route[] {
  return controllers.flatMap((controller) => {
    const base = stringMeta(PATH_METADATA, controller) ?? '';
    const proto: object = controller.prototype;
    return Object.getOwnPropertyNames(proto).flatMap((name): Route[] => {
      const handler: unknown = Object.getOwnPropertyDescriptor(proto, name)?.value;
      if (typeof handler !== 'function' || name === 'constructor') return [];
      const path = stringMeta(PATH_METADATA, handler);
      const method: unknown = Reflect.getMetadata(METHOD_METADATA, handler);
      if (path === undefined || typeof method !== 'number') return [];
      const roles: unknown =
        Reflect.getMetadata(ROLES_KEY, handler) ?? Reflect.getMetadata(ROLES_KEY, controller);
      const doc: unknown = Reflect.getMetadata(API_DOC_KEY, handler);
      return [
        {
          method: RequestMethod[method].toLowerCase(),
          path: openApiPath(base, path),
          operationId: `${controller.name}.${name}`,
          roles: Array.isArray(roles) ? roles.map(String) : undefined,
          doc: isApiDoc(doc) ? doc : undefined,
        },
      ];
    });
  });
}

/** The OpenAPI 3.1 document of `routes`. */
export function openApiDocument(routes: readonly Route[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method] = operation(route);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Flex',
      version: '1',
      description:
        'Errors are `{ error: { code, message, details } }`; a refused request changes nothing. ' +
        'Limits and their 429s: docs/security/http-limits-and-fuzz.md.',
    },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths,
  };
}

function operation(route: Route): Record<string, unknown> {
  const doc = route.doc;
  const params = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => param(m[1], 'path', true));
  for (const name of doc?.query ?? []) params.push(param(name, 'query', false));
  for (const name of doc?.headers ?? []) params.push(param(name, 'header', false));
  return {
    operationId: route.operationId,
    summary: doc?.summary ?? route.operationId,
    security: route.roles ? [{ bearer: [] }] : [],
    'x-flex-roles': route.roles ?? [],
    parameters: params,
    ...(doc?.body ? { requestBody: requestBody(doc.body) } : {}),
    responses: responses(route),
  };
}

const param = (name: string, where: 'path' | 'query' | 'header', required: boolean) => ({
  name,
  in: where,
  required,
  schema: { type: 'string' },
});

function requestBody(body: NonNullable<ApiDocInput['body']>): Record<string, unknown> {
  const schema = body.schema
    ? z.toJSONSchema(body.schema, { unrepresentable: 'any', io: 'input' })
    : { type: 'object' };
  return { required: body.required, content: { 'application/json': { schema, example: body.example } } };
}

function responses(route: Route): Record<string, { description: string }> {
  const ok = route.doc?.sse ? 'an SSE stream (text/event-stream)' : 'done';
  const all: Record<string, { description: string }> = { '200': { description: ok } };
  if (route.path.includes('{') || route.doc?.body || route.doc?.query)
    all['400'] = { description: 'a bad request, naming what is wrong' };
  if (route.roles) {
    all['401'] = { description: 'no valid bearer token' };
    all['403'] = { description: 'the token’s role may not do this' };
    all['429'] = { description: 'over a limit of the token; see Retry-After' };
  }
  if (route.doc?.body) all['413'] = { description: 'the body is too large' };
  return all;
}

const isApiDoc = (value: unknown): value is ApiDocInput =>
  typeof value === 'object' && value !== null && 'summary' in value && typeof value.summary === 'string';

function stringMeta(key: string, target: object): string | undefined {
  const value: unknown = Reflect.getMetadata(key, target);
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** `api/v1/flex` + `runs/:id` → `/api/v1/flex/runs/{id}`. */
function openApiPath(base: string, path: string): string {
  const joined = [base, path]
    .map((part) => part.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/');
  return `/${joined}`.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}
