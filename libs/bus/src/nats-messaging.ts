import {
  connect,
  ErrorCode,
  headers as natsHeaders,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type Subscription,
} from 'nats';
import {
  BusClosedError,
  BusDisconnectedError,
  describe,
  MessagingError,
  NoRespondersError,
  PermissionDeniedError,
  RemoteError,
  RequestTimeoutError,
  type WireError,
} from './errors';
import { busFallbackLogger, type BusLogger } from './logger';
import { answer, ERROR_HEADER, fromJsonBytes, toJsonBytes, type Reply } from './messaging-codec';
import { natsConnectionOptions, type NatsAuthOptions } from './nats-connection';
import type { IncomingRequest, Messaging, RequestOptions } from './types';

export interface NatsMessagingOptions {
  /** drain() also drains (and so closes) the connection. Default false: the caller owns it. */
  ownsConnection?: boolean;
  logger?: BusLogger;
}

/** Core NATS request/reply and publish/subscribe, JSON payloads, error replies flagged by a header. */
export class NatsMessaging implements Messaging {
  private readonly subs = new Set<Subscription>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly logger: BusLogger;
  private closed = false;
  /** Disconnects seen so far, and whether the connection is down now (see {@link watchConnection}). */
  private disconnects = 0;
  private down = false;
  /** The requests waiting for a reply: a disconnect fails them (their replies may be lost). */
  private readonly waiting = new Set<() => void>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: NatsMessagingOptions = {},
  ) {
    this.logger = options.logger ?? busFallbackLogger;
    void this.watchConnection();
  }

  /**
   * Follow the connection's status: a request that timed out while the connection was down (or
   * went down meanwhile) tells nothing about the responder (BUS_DISCONNECTED, not TIMEOUT).
   */
  private async watchConnection(): Promise<void> {
    try {
      for await (const status of this.nc.status()) {
        if (status.type === 'disconnect' || status.type === 'reconnecting') {
          if (!this.down) this.disconnects++;
          this.down = true;
          for (const fail of this.waiting) fail();
        } else if (status.type === 'reconnect') this.down = false;
      }
    } catch {
      // The status iterator ends with the connection; nothing to follow then.
    }
  }

  /** A messaging that owns its own connection, authenticated as `options.auth` says. */
  static async connect(
    url: string,
    options: Omit<NatsMessagingOptions, 'ownsConnection'> & { auth?: NatsAuthOptions; name?: string } = {},
  ): Promise<NatsMessaging> {
    const { auth, name, ...rest } = options;
    const nc = await connect(natsConnectionOptions(url, name ?? 'flex-messaging', auth));
    return new NatsMessaging(nc, { ...rest, ownsConnection: true });
  }

  /**
   * A request/reply. Nobody serving the subject is NO_RESPONDERS; the connection dropping while the
   * request waits fails it at once as BUS_DISCONNECTED (a reply sent meanwhile is lost, and waiting
   * out the timeout would only delay asking again), as does a timeout while the connection was down.
   */
  async request<T = unknown>(subject: string, data: unknown, options: RequestOptions): Promise<T> {
    this.assertOpen();
    let reply: Msg;
    const disconnectsBefore = this.disconnects;
    let fail!: () => void;
    const dropped = new Promise<never>((_, reject) => {
      fail = () => reject(new BusDisconnectedError(subject));
    });
    this.waiting.add(fail);
    try {
      const asked = this.nc.request(subject, toJsonBytes(data), {
        timeout: options.timeoutMs,
        headers: toNatsHeaders(options.headers),
      });
      asked.catch(() => undefined); // lost the race to `dropped`: its own timeout settles it later
      reply = await Promise.race([asked, dropped]);
    } catch (cause) {
      throw this.requestError(subject, cause, options.timeoutMs, disconnectsBefore);
    } finally {
      this.waiting.delete(fail);
    }
    const value = fromJsonBytes(subject, reply.data);
    if (reply.headers?.has(ERROR_HEADER)) throw new RemoteError(subject, value as WireError);
    return value as T;
  }

  private requestError(subject: string, cause: unknown, timeoutMs: number, disconnectsBefore: number) {
    if (cause instanceof BusDisconnectedError) return cause;
    const code = (cause as { code?: string }).code;
    if (code === ErrorCode.PermissionsViolation)
      return new PermissionDeniedError(subject, 'publish', { cause });
    if (code === ErrorCode.NoResponders) return new NoRespondersError(subject, { cause });
    const wasDown = this.down || this.disconnects !== disconnectsBefore;
    if (code === ErrorCode.Disconnect || (code === ErrorCode.Timeout && wasDown))
      return new BusDisconnectedError(subject, { cause });
    if (code === ErrorCode.Timeout) return new RequestTimeoutError(subject, timeoutMs, { cause });
    return new MessagingError(
      'REQUEST_FAILED',
      `request on ${subject} failed: ${describe(cause)}`,
      true,
      subject,
      {
        cause,
      },
    );
  }

  async serve(
    subject: string,
    options: { queue?: string },
    handler: (req: IncomingRequest) => Promise<unknown>,
  ): Promise<() => Promise<void>> {
    return this.listen(subject, options.queue, async (msg) => {
      const reply = await answer(handler, () => toRequest(msg));
      if (!msg.reply) return; // published to, not requested: nobody waits for an answer
      try {
        msg.respond(toJsonBytes(reply.ok ? (reply.value ?? null) : reply.error), {
          headers: errorHeaders(reply),
        });
      } catch (error) {
        this.logger.warn('replying failed', { subject, error: describe(error) });
      }
    });
  }

  async publish(subject: string, data: unknown): Promise<void> {
    this.assertOpen();
    this.nc.publish(subject, toJsonBytes(data));
  }

  async subscribe(subject: string, handler: (req: IncomingRequest) => void): Promise<() => Promise<void>> {
    return this.listen(subject, undefined, async (msg) => handler(toRequest(msg)));
  }

  /** Stop taking messages, let the handlers in flight answer, then (if owned) close the connection. */
  async drain(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subs].map((sub) => sub.drain().catch(() => undefined)));
    this.subs.clear();
    await Promise.all(this.inFlight);
    if (this.options.ownsConnection && !this.nc.isClosed()) await this.nc.drain();
  }

  private async listen(
    subject: string,
    queue: string | undefined,
    onMsg: (msg: Msg) => Promise<void>,
  ): Promise<() => Promise<void>> {
    this.assertOpen();
    const mine = new Set<Promise<void>>();
    let refused: unknown;
    const sub = this.nc.subscribe(subject, {
      queue,
      callback: (error, msg) => {
        if (error?.code === ErrorCode.PermissionsViolation) refused = error;
        if (error) return this.logger.warn('subscription failed', { subject, error: describe(error) });
        const done: Promise<void> = onMsg(msg)
          .catch((err: unknown) =>
            this.logger.warn('message handler failed', { subject, error: describe(err) }),
          )
          .finally(() => {
            mine.delete(done);
            this.inFlight.delete(done);
          });
        mine.add(done);
        this.inFlight.add(done);
      },
    });
    this.subs.add(sub);
    // The server knows the interest before we return, and has said by now if it refuses it.
    await this.nc.flush();
    if (refused !== undefined) {
      this.subs.delete(sub);
      throw new PermissionDeniedError(subject, 'subscribe', { cause: refused });
    }
    return async () => {
      if (this.subs.delete(sub)) await sub.drain().catch(() => undefined);
      await Promise.all(mine);
    };
  }

  private assertOpen(): void {
    if (this.closed) throw new BusClosedError('NatsMessaging');
  }
}

function toRequest(msg: Msg): IncomingRequest {
  const headers: Record<string, string> = {};
  for (const [key, values] of msg.headers ?? []) headers[key] = values.join(',');
  return { subject: msg.subject, data: fromJsonBytes(msg.subject, msg.data), headers };
}

function toNatsHeaders(values: Record<string, string> | undefined): MsgHdrs | undefined {
  if (!values || Object.keys(values).length === 0) return undefined;
  const h = natsHeaders();
  for (const [key, value] of Object.entries(values)) h.set(key, value);
  return h;
}

function errorHeaders(reply: Reply): MsgHdrs | undefined {
  if (reply.ok) return undefined;
  const h = natsHeaders();
  h.set(ERROR_HEADER, reply.error.code);
  return h;
}
