import type { RawRequest } from '@flex/testing';

/** One operation of the OpenAPI document, as the fuzz test uses it. */
export interface Endpoint {
  method: string;
  /** The path template: `/api/v1/flex/runs/{id}/events`. */
  path: string;
  pathParams: string[];
  query: string[];
  headers: string[];
  /** Roles allowed; empty for a public route. */
  roles: string[];
  /** An example of a valid body, when the operation documents one. */
  example?: unknown;
}

/** Every operation of an OpenAPI document (`GET openapi.json`). */
export function endpointsOf(document: unknown): Endpoint[] {
  const paths = field(document, 'paths');
  return Object.entries(isRecord(paths) ? paths : {}).flatMap(([path, operations]) =>
    Object.entries(isRecord(operations) ? operations : {}).map(([method, operation]) => {
      const params = arrayOf(field(operation, 'parameters'));
      const named = (where: string) =>
        params.filter((p) => field(p, 'in') === where).map((p) => String(field(p, 'name')));
      const content = field(field(field(operation, 'requestBody'), 'content'), 'application/json');
      return {
        method: method.toUpperCase(),
        path,
        pathParams: named('path'),
        query: named('query'),
        headers: named('header'),
        roles: arrayOf(field(operation, 'x-flex-roles')).map(String),
        example: field(content, 'example'),
      };
    }),
  );
}

/** What a request is before the fuzz spoils it: valid, as far as the fuzz knows. */
export interface Draft {
  method: string;
  /** Raw (already percent-encoded) values of the path parameters. */
  pathValues: Record<string, string>;
  /** Raw `key=value` pairs, in order. */
  query: string[];
  authorization: string | null;
  headers: Array<[string, string]>;
  body?: Uint8Array;
  /** The body before any body defect: a defect that writes a new body starts from it. */
  original?: Uint8Array;
  contentLength?: number | null;
}

export interface Fixture {
  tokens: Record<'client' | 'operator' | 'agent' | 'admin', string>;
  /** A run that exists (and has ended): a valid `{id}`. */
  runId: string;
}

/** A request every check passes, as the admin (allowed everywhere): what the defects spoil. */
export function validDraft(endpoint: Endpoint, fixture: Fixture): Draft {
  const pathValues = Object.fromEntries(
    endpoint.pathParams.map((name) => [name, name === 'id' ? fixture.runId : 'hold']),
  );
  const body = endpoint.example === undefined ? undefined : Buffer.from(JSON.stringify(endpoint.example));
  return {
    method: endpoint.method,
    pathValues,
    query: endpoint.query.includes('limit') ? ['limit=5'] : [],
    authorization: endpoint.roles.length ? `Bearer ${fixture.tokens.admin}` : null,
    headers: body ? [['Content-Type', 'application/json']] : [],
    body,
  };
}

/** The draft as bytes for the socket. */
export function toRawRequest(endpoint: Endpoint, draft: Draft): RawRequest {
  const path = endpoint.path.replace(/\{([^}]+)\}/g, (_, name: string) => draft.pathValues[name] ?? '');
  const headers: Array<[string, string]> = [...draft.headers];
  if (draft.authorization !== null) headers.unshift(['Authorization', draft.authorization]);
  return {
    method: draft.method,
    target: draft.query.length ? `${path}?${draft.query.join('&')}` : path,
    headers,
    body: draft.body,
    contentLength: draft.contentLength,
  };
}

function field(value: unknown, key: string): unknown {
  return isRecord(value) ? value[key] : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
