import {
  BusClosedError,
  describe,
  InvalidBusOptionsError,
  NoRespondersError,
  RemoteError,
  RequestTimeoutError,
} from './errors';
import { busFallbackLogger, type BusLogger } from './logger';
import { answer, fromJsonBytes, toJsonBytes, type Reply } from './messaging-codec';
import { subjectMatches } from './subject-match';
import type { IncomingRequest, Messaging, RequestOptions } from './types';

interface LocalSub {
  pattern: string;
  queue?: string;
  /** Runs the handler for one message; `reply` is given only for requests. */
  deliver(req: IncomingRequest, reply?: (r: Reply) => void): Promise<void>;
  inFlight: Set<Promise<void>>;
}

/**
 * Core NATS semantics inside one process, for embedded mode: every plain subscriber gets a
 * message, one member of each queue group gets it (round-robin), a request with nobody
 * listening fails fast, the first reply wins, and payloads go through JSON as on the wire.
 */
export class InProcessMessaging implements Messaging {
  private readonly subs = new Set<LocalSub>();
  private readonly turns = new Map<string, number>();
  private readonly logger: BusLogger;
  private closed = false;

  constructor(options: { logger?: BusLogger } = {}) {
    this.logger = options.logger ?? busFallbackLogger;
  }

  async request<T = unknown>(subject: string, data: unknown, options: RequestOptions): Promise<T> {
    this.assertOpen();
    const targets = this.route(subject);
    if (targets.length === 0) throw new NoRespondersError(subject);
    const req = wire(subject, data, options.headers);
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const finish = (settle: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        settle();
      };
      const timer = setTimeout(
        () => finish(() => reject(new RequestTimeoutError(subject, options.timeoutMs))),
        options.timeoutMs,
      );
      const onReply = (reply: Reply): void =>
        finish(() => (reply.ok ? resolve(reply.value as T) : reject(new RemoteError(subject, reply.error))));
      for (const target of targets) void target.deliver(req(), onReply);
    });
  }

  async serve(
    subject: string,
    options: { queue?: string },
    handler: (req: IncomingRequest) => Promise<unknown>,
  ): Promise<() => Promise<void>> {
    return this.listen(subject, options.queue, async (req, reply) => {
      const result = await answer(handler, () => req);
      reply?.(roundTrip(result));
    });
  }

  async publish(subject: string, data: unknown): Promise<void> {
    this.assertOpen();
    const req = wire(subject, data);
    for (const target of this.route(subject)) void target.deliver(req());
  }

  async subscribe(subject: string, handler: (req: IncomingRequest) => void): Promise<() => Promise<void>> {
    return this.listen(subject, undefined, async (req) => handler(req));
  }

  /** Stop taking messages and wait for the handlers in flight (their replies still go out). */
  async drain(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const subs = [...this.subs];
    this.subs.clear();
    await Promise.all(subs.flatMap((sub) => [...sub.inFlight]));
  }

  private async listen(
    pattern: string,
    queue: string | undefined,
    run: (req: IncomingRequest, reply?: (r: Reply) => void) => Promise<void>,
  ): Promise<() => Promise<void>> {
    this.assertOpen();
    if (!isValidSubject(pattern)) throw new InvalidBusOptionsError(`invalid subject "${pattern}"`);
    const sub: LocalSub = {
      pattern,
      queue,
      inFlight: new Set(),
      deliver: (req, reply) => {
        // A later tick, as over a socket: the sender never runs the handler's code.
        const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
          .then(() => run(req, reply))
          .catch((error: unknown) =>
            this.logger.warn('message handler failed', { subject: req.subject, error: describe(error) }),
          )
          .finally(() => sub.inFlight.delete(done));
        sub.inFlight.add(done);
        return done;
      },
    };
    this.subs.add(sub);
    return async () => {
      this.subs.delete(sub);
      await Promise.all(sub.inFlight);
    };
  }

  /** Every plain subscriber, plus one member of each queue group, taking turns. */
  private route(subject: string): LocalSub[] {
    const plain: LocalSub[] = [];
    const groups = new Map<string, LocalSub[]>();
    for (const sub of this.subs) {
      if (!subjectMatches(sub.pattern, subject)) continue;
      if (sub.queue === undefined) plain.push(sub);
      else groups.set(sub.queue, [...(groups.get(sub.queue) ?? []), sub]);
    }
    for (const [queue, members] of groups) {
      const turn = this.turns.get(queue) ?? 0;
      this.turns.set(queue, turn + 1);
      plain.push(members[turn % members.length]);
    }
    return plain;
  }

  private assertOpen(): void {
    if (this.closed) throw new BusClosedError('InProcessMessaging');
  }
}

/** Non-empty tokens; `*` only as a whole token; `>` only as the whole last token. */
function isValidSubject(subject: string): boolean {
  const tokens = subject.split('.');
  return tokens.every(
    (t, i) =>
      t !== '' &&
      !/\s/.test(t) &&
      (t === '*' || !t.includes('*')) &&
      (t === '>' ? i === tokens.length - 1 : !t.includes('>')),
  );
}

/** Each receiver gets its own copy, exactly as JSON would carry it. */
function wire(subject: string, data: unknown, headers: Record<string, string> = {}): () => IncomingRequest {
  const bytes = toJsonBytes(data);
  return () => ({ subject, data: fromJsonBytes(subject, bytes), headers: { ...headers } });
}

function roundTrip(reply: Reply): Reply {
  return reply.ok
    ? { ok: true, value: fromJsonBytes('', toJsonBytes(reply.value ?? null)) }
    : { ok: false, error: reply.error };
}
