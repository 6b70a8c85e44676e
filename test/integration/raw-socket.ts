import { connect, type Socket } from 'node:net';
import { waitFor } from '@flex/testing';

/**
 * A TCP client of the gateway that says exactly what a test makes it say, as slowly as it likes,
 * and records what comes back and when the server let go of it.
 */
export interface RawClient {
  socket: Socket;
  /** When the connection was established (ms since the epoch). */
  openedAt: number;
  /** Every byte received so far, as latin1. */
  received(): string;
  /** Resolves with the time (ms since the epoch) the connection closed, by either side. */
  closed: Promise<number>;
  isClosed(): boolean;
  /** Write unless the connection has closed; false when it had. */
  send(text: string | Buffer): boolean;
}

export function openRaw(port: number): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closedAt: number | undefined;
    const closed = new Promise<number>((done) =>
      socket.once('close', () => {
        closedAt = Date.now();
        done(closedAt);
      }),
    );
    // A reset from a server that closes while this client still writes is a close, not a failure.
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('connect', () =>
      resolve({
        socket,
        openedAt: Date.now(),
        received: () => Buffer.concat(chunks).toString('latin1'),
        closed,
        isClosed: () => closedAt !== undefined,
        send: (text) => closedAt === undefined && !socket.destroyed && socket.write(text),
      }),
    );
    socket.once('error', reject);
  });
}

/**
 * Write `text` one byte every `everyMs` until it is all sent or the connection closes. Returns how
 * many bytes went out; `stop()` ends it early.
 */
export function trickle(
  client: RawClient,
  text: string,
  everyMs: number,
): { stop: () => void; sent: () => number } {
  let sent = 0;
  const timer = setInterval(() => {
    if (sent >= text.length || !client.send(text[sent])) return clearInterval(timer);
    sent += 1;
  }, everyMs);
  void client.closed.then(() => clearInterval(timer));
  return { stop: () => clearInterval(timer), sent: () => sent };
}

export interface ResponseHead {
  status: number;
  headers: Record<string, string>;
  /** What came after the head so far. */
  rest: string;
}

/** The head of the first response on the connection, once it has arrived. */
export function responseHead(client: RawClient, timeoutMs: number): Promise<ResponseHead> {
  return waitFor(
    async () => parseHead(client.received()),
    timeoutMs,
    () => `no response head; received: ${client.received().slice(0, 500)}`,
  );
}

export function parseHead(text: string): ResponseHead | undefined {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status, headers, rest: text.slice(end + 4) };
}

/** A request head as sent on a raw socket; `extra` lines go before the blank line. */
export function head(method: string, target: string, extra: string[] = []): string {
  return [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1', ...extra, '', ''].join('\r\n');
}

/**
 * Stop reading once the response head is in, as a reader that has stopped would: in the same tick
 * as the data arrives, before the kernel learns to give this connection a larger receive buffer.
 * Resolves with the time it stopped.
 */
export function stopReadingAfterHead(client: RawClient): Promise<number> {
  return new Promise((resolve) => {
    const onData = () => {
      if (!client.received().includes('\r\n\r\n')) return;
      client.socket.pause();
      client.socket.off('data', onData);
      resolve(Date.now());
    };
    client.socket.on('data', onData);
  });
}
