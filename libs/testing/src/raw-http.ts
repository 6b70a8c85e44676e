import { connect } from 'node:net';

/** A request written byte for byte: nothing is escaped, checked or fixed up but what is said here. */
export interface RawRequest {
  method: string;
  /** The request target as sent: `/api/v1/flex/runs?x=1&x=2`, percent escapes and all. */
  target: string;
  /** Sent in order, duplicates and all, encoded as latin1 (what HTTP/1.1 headers carry). */
  headers?: ReadonlyArray<readonly [string, string]>;
  body?: Uint8Array;
  /** `Content-Length` is the body's length unless set here (or `null`: no header). */
  contentLength?: number | null;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** The body as text; empty for an SSE stream (read no further than its headers). */
  body: string;
}

/**
 * One request on its own connection (`Connection: close`), answered when the server ends the
 * response. An SSE answer resolves as soon as its head arrives, and the connection is dropped.
 */
export function rawRequest(port: number, request: RawRequest, timeoutMs = 15_000): Promise<RawResponse> {
  const body = request.body ?? new Uint8Array();
  const head = [
    `${request.method} ${request.target} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    'Connection: close',
  ];
  for (const [name, value] of request.headers ?? []) head.push(`${name}: ${value}`);
  const length = request.contentLength === undefined ? body.length : request.contentLength;
  if (length !== null) head.push(`Content-Length: ${length}`);
  const bytes = Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
  return exchange(port, bytes, timeoutMs);
}

function exchange(port: number, bytes: Buffer, timeoutMs: number): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => fail(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    const settle = () => {
      const parsed = parseResponse(Buffer.concat(chunks));
      if (!parsed) return false;
      clearTimeout(timer);
      socket.destroy();
      resolve(parsed);
      return true;
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString('latin1');
      if (
        /\r\ncontent-type: text\/event-stream/i.test(text.split('\r\n\r\n')[0]) &&
        text.includes('\r\n\r\n')
      )
        settle();
    });
    // The server may answer and close before it has read everything sent (a refusal up front):
    // a reset after the answer arrived is the end of the answer, not a failure.
    socket.on('error', (error) => {
      if (!settle()) fail(error);
    });
    socket.on('end', () => {
      if (!settle()) fail(new Error(`the connection closed without an answer: ${Buffer.concat(chunks)}`));
    });
    // A write the server cuts short by answering and closing first shows up as 'error' above.
    socket.write(bytes);
  });
}

function parseResponse(raw: Buffer): RawResponse | undefined {
  const text = raw.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  if (!Number.isInteger(status)) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return {
    status,
    headers,
    body: raw.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1')).toString('utf8'),
  };
}
