import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { from, switchMap, type Observable } from 'rxjs';
import { API_DOC_KEY, type ApiDocInput } from '../openapi/api-doc.decorator';
import { apiError } from './api-error';
import { BODY_MAX_BYTES, parseJsonBody } from './json-body';

/**
 * Reads and checks the JSON body of a POST after the guards have run (Nest runs interceptors after
 * guards): a request without a valid token, or over its token's limits, is answered before a byte
 * of its body is read. Handlers find the checked value in `req.body` (`undefined` when empty). A
 * route whose API document declares no body refuses one other than `{}` (400 `unexpected_body`): a
 * body it would ignore is a client's mistake, not something to act on as if it were not there.
 */
@Injectable()
export class JsonBodyInterceptor implements NestInterceptor {
  constructor(private readonly reflector = new Reflector()) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    if (req.method !== 'POST') return next.handle();
    const doc = this.reflector.get<ApiDocInput | undefined>(API_DOC_KEY, context.getHandler());
    return from(readJsonBody(req)).pipe(
      switchMap((value) => {
        if (doc && !doc.body && !isEmptyBody(value))
          throw apiError(400, 'unexpected_body', `${req.method} ${req.path} takes no body`, {});
        req.body = value;
        return next.handle();
      }),
    );
  }
}

async function readJsonBody(req: Request): Promise<unknown> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity')
    throw apiError(415, 'unsupported_content_encoding', 'request bodies are not compressed (identity only)', {
      contentEncoding: encoding,
    });
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > BODY_MAX_BYTES) throw tooLarge();
  const parsed = parseJsonBody(await readBytes(req, BODY_MAX_BYTES));
  if (!parsed.ok) throw apiError(400, parsed.problem.code, parsed.problem.message, parsed.problem.details);
  return parsed.value;
}

/** The body's bytes; past `limit` it stops reading and refuses (the error filter closes the connection). */
function readBytes(req: Request, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error?: Error) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', finish);
      req.off('close', onClose);
      if (error) reject(error);
      else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        finish(tooLarge());
      } else chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onClose = () => {
      if (!req.complete) finish(apiError(400, 'body_incomplete', 'the client left before sending the body'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', finish);
    req.on('close', onClose);
  });
}

const tooLarge = () =>
  apiError(413, 'payload_too_large', `the body exceeds ${BODY_MAX_BYTES} bytes`, { limit: BODY_MAX_BYTES });

/** No body, or `{}` (what many clients send when there is nothing to say). */
function isEmptyBody(value: unknown): boolean {
  if (value === undefined) return true;
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
  );
}
