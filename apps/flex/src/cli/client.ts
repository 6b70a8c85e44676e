import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT } from './exit-codes';

export interface CliContext {
  baseUrl: string;
  token: string;
  out: (line: string) => void;
  err: (line: string) => void;
}

/** FLEX_URL (default http://127.0.0.1:PORT) and FLEX_TOKEN, else the token embedded mode saved in FLEX_DATA_DIR. */
export function cliContext(env: NodeJS.ProcessEnv = process.env): CliContext {
  const baseUrl = (env.FLEX_URL ?? `http://127.0.0.1:${env.PORT ?? 3000}`).replace(/\/$/, '');
  const tokenFile = join(env.FLEX_DATA_DIR ?? '.flex', 'api-token');
  const token = env.FLEX_TOKEN ?? (existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : '');
  if (!token)
    throw new CliError(
      'no API token: set FLEX_TOKEN (or run from the directory holding .flex/api-token)',
      EXIT.unauthorized,
    );
  return {
    baseUrl,
    token,
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(`${l}\n`),
  };
}

export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number = EXIT.error,
    /** For an API error: the HTTP status, the error's `code` and its `message`. */
    readonly http?: { status: number; code?: string; message?: string },
  ) {
    super(message);
  }
}

export async function api(
  ctx: CliContext,
  method: string,
  path: string,
  body?: unknown,
  accept = 'application/json',
  extra: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(`${ctx.baseUrl}/api/v1/flex/${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${ctx.token}`,
        Accept: accept,
        ...extra.headers,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: extra.signal,
    });
  } catch (error) {
    throw new CliError(`cannot reach Flex at ${ctx.baseUrl}: ${(error as Error).message}`, EXIT.unreachable);
  }
  if (!res.ok) {
    const text = await res.text();
    let message = text;
    let code: string | undefined;
    let said: string | undefined;
    try {
      const parsed = JSON.parse(text) as { error?: { code?: string; message?: string } };
      if (parsed.error) message = `${parsed.error.code}: ${parsed.error.message}`;
      code = parsed.error?.code;
      said = parsed.error?.message;
    } catch {
      // not JSON: show it as it came
    }
    throw new CliError(`HTTP ${res.status} ${message}`, exitForStatus(res.status), {
      status: res.status,
      code,
      message: said,
    });
  }
  return res;
}

/** The exit code of an HTTP error (see EXIT). */
export function exitForStatus(status: number): number {
  if (status === 400 || status === 413 || status === 422) return EXIT.usage;
  if (status === 401 || status === 403) return EXIT.unauthorized;
  if (status === 502 || status === 503 || status === 504) return EXIT.unreachable;
  return EXIT.error;
}
