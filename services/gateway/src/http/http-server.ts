import { createServer, STATUS_CODES } from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { FlexConfig } from '@flex/runtime';

/** The server's own limits (FLEX_LIMIT_* in the config): the slow-client timeouts and the socket cap. */
export interface ServerLimits {
  headersTimeoutMs: number;
  /** Headers and body, from the first byte of the request to its last. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection between requests. */
  idleTimeoutMs: number;
  maxConnections: number;
}

export function serverLimitsFrom(config: FlexConfig): ServerLimits {
  return {
    headersTimeoutMs: config.FLEX_LIMIT_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.FLEX_LIMIT_REQUEST_TIMEOUT_MS,
    idleTimeoutMs: config.FLEX_LIMIT_IDLE_TIMEOUT_MS,
    maxConnections: config.FLEX_LIMIT_CONNECTIONS,
  };
}

/**
 * Nest's express adapter on a server that cuts slow clients off: Node's defaults let a request
 * take 300 s and check only every 30 s. A connection over `maxConnections` is closed at once; a
 * request Node's parser refuses (header too large, malformed, too slow) gets the API's JSON error.
 */
export class LimitedExpressAdapter extends ExpressAdapter {
  constructor(private readonly limits: ServerLimits) {
    super();
  }

  override initHttpServer(): void {
    const { headersTimeoutMs, requestTimeoutMs, idleTimeoutMs, maxConnections } = this.limits;
    const server = createServer(
      {
        headersTimeout: headersTimeoutMs,
        requestTimeout: requestTimeoutMs,
        // How often Node looks for requests past their timeouts: a fraction of the shortest.
        connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeoutMs / 4))),
      },
      this.getInstance(),
    );
    server.keepAliveTimeout = idleTimeoutMs;
    server.maxConnections = maxConnections;
    server.on('clientError', answerClientError);
    this.setHttpServer(server);
  }
}

/**
 * What Node does for a request its parser refuses, with the API's error body: answer only while
 * nothing has been written on the socket (an answer in the middle of another would corrupt it).
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (
    error.code !== 'ECONNRESET' &&
    socket instanceof Socket &&
    socket.writable &&
    socket.bytesWritten === 0
  ) {
    const [status, code, message] = clientErrorOf(error.code);
    const body = JSON.stringify({ error: { code, message, details: { cause: error.code ?? 'unknown' } } });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

function clientErrorOf(code: string | undefined): [number, string, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'headers_too_large', 'the request headers are larger than the server accepts'];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'payload_too_large', 'the chunk extensions are larger than the server accepts'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'request_timeout', 'the request was not received in time'];
    default:
      return [400, 'malformed_request', 'the request is not valid HTTP/1.1'];
  }
}
