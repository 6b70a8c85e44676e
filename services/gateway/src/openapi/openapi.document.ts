import { RequestMethod, type Type } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ErrorResponseSchema } from '@flex/contracts';
import { API_DOC_KEY, type ApiDocInput } from '@flex/runtime';
import type { z } from 'zod';
import { ROLES_KEY } from '../auth/auth.guard';
import { SchemaComponents } from './openapi.components';

/** One route of the API, as the controllers declare it. */
export interface Route {
  method: string;
  /** OpenAPI form: `/api/v1/flex/runs/{id}/events`. */
  path: string;
  operationId: string;
  /** The success status: `@HttpCode`'s, else Nest's default (201 for a POST, 200 otherwise). */
  status: number;
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
      const code: unknown = Reflect.getMetadata(HTTP_CODE_METADATA, handler);
      const verb = RequestMethod[method].toLowerCase();
      return [
        {
          method: verb,
          status: successStatus(verb, code, isApiDoc(doc) ? doc : undefined),
          path: openApiPath(base, path),
          operationId: `${controller.name}.${name}`,
          roles: Array.isArray(roles) ? roles.map(String) : undefined,
          doc: isApiDoc(doc) ? doc : undefined,
        },
      ];
    });
  });
}

/** The OpenAPI 3.1 document of `routes`, its schemas generated from the zod contracts. */
export function openApiDocument(routes: readonly Route[]): Record<string, unknown> {
  const components = new SchemaComponents();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method] = operation(route, components);
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Flex',
      version: '1',
      description:
        'Errors are `{ error: { code, message, details } }`; a refused request changes nothing. ' +
        'SSE answers are frames whose `data:` is a FlexEventFrame (`x-flex-event-data`); an `event: log` ' +
        'frame without an `id:` line is a live log line of the run, not an event (docs/OBSERVABILITY.md). ' +
        'Limits and their 429s: docs/security/http-limits.md.',
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: components.schemas(),
    },
    paths,
  };
}

function operation(route: Route, components: SchemaComponents): Record<string, unknown> {
  const doc = route.doc;
  const name = componentName(route.operationId);
  return {
    operationId: route.operationId,
    summary: doc?.summary ?? route.operationId,
    ...(doc?.description ? { description: doc.description } : {}),
    security: route.roles ? [{ bearer: [] }] : [],
    'x-flex-roles': route.roles ?? [],
    parameters: parameters(route),
    ...(doc?.body
      ? {
          requestBody: {
            required: doc.body.required,
            content: {
              'application/json': {
                schema: components.ref(doc.body.schema, 'input', `${name}Body`),
                example: doc.body.example,
              },
            },
          },
        }
      : {}),
    responses: responses(route, components, name),
  };
}

function parameters(route: Route): Array<Record<string, unknown>> {
  const params: Array<Record<string, unknown>> = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  for (const [name, schema] of Object.entries(route.doc?.query?.shape ?? {})) {
    const field = schema as z.ZodType;
    params.push({
      name,
      in: 'query',
      required: !field.safeParse(undefined).success,
      schema: SchemaComponents.inline(field),
    });
  }
  for (const name of route.doc?.headers ?? [])
    params.push({ name, in: 'header', required: false, schema: { type: 'string' } });
  return params;
}

const SSE_DATA = { $ref: '#/components/schemas/FlexEventFrame' };

function responses(route: Route, components: SchemaComponents, name: string): Record<string, unknown> {
  const doc = route.doc;
  const error = (description: string) => ({
    description,
    content: { 'application/json': { schema: components.ref(ErrorResponseSchema, 'output', 'Error') } },
  });
  const all: Record<string, unknown> = { [String(route.status)]: success(doc, components, name) };
  if (route.path.includes('{') || doc?.body || doc?.query)
    all['400'] = error('a bad request, naming what is wrong');
  if (route.roles) {
    all['401'] = error('no valid bearer token');
    all['403'] = error('the token’s role may not do this');
    all['429'] = error('over a limit of the token; see Retry-After');
  }
  if (doc?.body) all['413'] = error('the body is too large');
  for (const [status, answer] of Object.entries(doc?.errors ?? {}))
    all[status] =
      typeof answer === 'string'
        ? error(answer)
        : {
            description: answer.description,
            content: {
              'application/json': { schema: components.ref(answer.schema, 'output', `${name}${status}`) },
            },
          };
  return all;
}

function success(doc: ApiDocInput | undefined, components: SchemaComponents, name: string) {
  switch (doc?.produces) {
    case 'text/event-stream':
      return {
        description: 'an SSE stream: `id:` the event position, `event:` its type, `data:` a FlexEventFrame',
        content: { 'text/event-stream': { schema: { type: 'string' }, 'x-flex-event-data': SSE_DATA } },
      };
    case 'text/html':
    case 'text/plain':
      return { description: 'done', content: { [doc.produces]: { schema: { type: 'string' } } } };
    case 'application/octet-stream':
      return { description: 'a file', content: { [doc.produces]: { schema: {} } } };
    case 'application/x-ndjson':
      return {
        description: 'NDJSON: one JSON document per line',
        content: { [doc.produces]: { schema: { type: 'string' } } },
      };
    case undefined:
      return doc?.response
        ? {
            description: 'done',
            content: { 'application/json': { schema: components.ref(doc.response, 'output', name) } },
          }
        : { description: 'done' };
  }
}

/** An SSE route writes its own 200 (openSse); any other answers with Nest's status. */
function successStatus(verb: string, code: unknown, doc: ApiDocInput | undefined): number {
  if (typeof code === 'number') return code;
  return verb === 'post' && doc?.produces !== 'text/event-stream' ? 201 : 200;
}

/** `RunsController.list` → `RunsList`: a component name for a route's own schemas. */
function componentName(operationId: string): string {
  const [controller, method] = operationId.split('.');
  const base = controller.replace(/Controller$/, '');
  return `${base}${method.charAt(0).toUpperCase()}${method.slice(1)}`;
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
