import type { Messaging } from '../types';
import { deferred, waitFor } from './wait-for';

export interface MessagingHarness {
  /** Messaging as one process sees it: NATS gives each its own connection; in-process shares one. */
  instance(): Promise<Messaging>;
  /** A subject unique to this harness. */
  subject(name: string): string;
  close(): Promise<void>;
}

/** The Messaging contract, run against NATS and the in-process implementation alike. */
export function describeMessagingBehaviour(name: string, makeHarness: () => Promise<MessagingHarness>): void {
  describe(`${name} (Messaging behaviour)`, () => {
    let h: MessagingHarness;
    beforeEach(async () => (h = await makeHarness()));
    afterEach(() => h.close());

    it('answers a request with the handler value, as JSON carries it', async () => {
      const subject = h.subject('echo');
      const server = await h.instance();
      await server.serve(subject, {}, async (req) => ({
        got: req.data,
        subject: req.subject,
        trace: req.headers.traceparent,
      }));
      const client = await h.instance();
      const at = new Date('2026-01-02T03:04:05.000Z');
      const reply = await client.request(
        subject,
        { at, n: 1 },
        { timeoutMs: 2000, headers: { traceparent: '00-abc-def-01' } },
      );
      expect(reply).toEqual({ got: { at: at.toISOString(), n: 1 }, subject, trace: '00-abc-def-01' });
    });

    it('answers null when the handler returns nothing', async () => {
      const subject = h.subject('void');
      await (await h.instance()).serve(subject, {}, async () => undefined);
      await expect((await h.instance()).request(subject, undefined, { timeoutMs: 2000 })).resolves.toBeNull();
    });

    it('shares requests between the members of a queue group, each request answered once', async () => {
      const subject = h.subject('work');
      const handledBy: string[][] = [[], []];
      for (const [i, seen] of handledBy.entries()) {
        await (
          await h.instance()
        ).serve(subject, { queue: 'workers' }, async (req) => {
          seen.push(String(req.data));
          return i;
        });
      }
      const client = await h.instance();
      const replies = await Promise.all(
        Array.from({ length: 40 }, (_, n) => client.request<number>(subject, n, { timeoutMs: 2000 })),
      );
      expect(replies.every((r) => r === 0 || r === 1)).toBe(true);
      expect(handledBy.flat().sort()).toEqual(Array.from({ length: 40 }, (_, n) => String(n)).sort());
      expect(handledBy.every((seen) => seen.length > 0)).toBe(true);
    });

    it('delivers a publish to every plain subscriber, wildcards included', async () => {
      const subject = h.subject('news.today');
      const got: string[] = [];
      await (await h.instance()).subscribe(subject, (req) => void got.push(`exact:${String(req.data)}`));
      await (
        await h.instance()
      ).subscribe(
        subject.replace(/\.today$/, '.*'),
        (req) => void got.push(`star:${req.subject === subject}`),
      );
      await (await h.instance()).publish(subject, 'hello');
      await waitFor('both subscribers', () => got.length === 2);
      expect(got.sort()).toEqual(['exact:hello', 'star:true']);
    });

    it('fails fast when nobody serves the subject', async () => {
      const started = Date.now();
      const error = await (
        await h.instance()
      )
        .request(h.subject('nobody'), {}, { timeoutMs: 5000 })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'NoRespondersError', code: 'NO_RESPONDERS', retryable: true });
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it('times out when the responder does not answer in time', async () => {
      const subject = h.subject('slow');
      const gate = deferred();
      await (await h.instance()).serve(subject, {}, async () => gate.promise);
      const error = await (
        await h.instance()
      )
        .request(subject, {}, { timeoutMs: 200 })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'RequestTimeoutError', code: 'TIMEOUT', retryable: true });
      gate.resolve();
    });

    it("rejects with the remote error's code, retryable flag and details", async () => {
      const subject = h.subject('failing');
      await (
        await h.instance()
      ).serve(subject, {}, async (req) => {
        if (req.data === 'coded')
          throw Object.assign(new Error('inputs break the contract'), {
            code: 'invalid_input',
            retryable: false,
            details: { path: '/a' },
          });
        throw new Error('boom');
      });
      const client = await h.instance();
      await expect(client.request(subject, 'coded', { timeoutMs: 2000 })).rejects.toMatchObject({
        name: 'RemoteError',
        code: 'invalid_input',
        retryable: false,
        message: 'inputs break the contract',
        details: { path: '/a' },
      });
      await expect(client.request(subject, 'plain', { timeoutMs: 2000 })).rejects.toMatchObject({
        code: 'REMOTE_ERROR',
        retryable: true,
        message: 'boom',
      });
    });

    it('stops serving when the returned function is called', async () => {
      const subject = h.subject('unserved');
      const server = await h.instance();
      const stop = await server.serve(subject, {}, async () => 'here');
      const client = await h.instance();
      await expect(client.request(subject, {}, { timeoutMs: 2000 })).resolves.toBe('here');
      await stop();
      await expect(client.request(subject, {}, { timeoutMs: 2000 })).rejects.toMatchObject({
        code: 'NO_RESPONDERS',
      });
    });

    it('drain() waits for the handlers in flight, whose replies still arrive', async () => {
      const subject = h.subject('draining');
      const server = await h.instance();
      const gate = deferred();
      let started = false;
      await server.serve(subject, {}, async () => {
        started = true;
        await gate.promise;
        return 'finished';
      });
      const reply = (await h.instance()).request(subject, {}, { timeoutMs: 5000 });
      await waitFor('handler started', () => started);
      let drained = false;
      const draining = server.drain().then(() => (drained = true));
      await new Promise((r) => setImmediate(r));
      expect(drained).toBe(false);
      gate.resolve();
      await expect(reply).resolves.toBe('finished');
      await draining;
      await expect(server.request(subject, {}, { timeoutMs: 100 })).rejects.toMatchObject({
        code: 'BUS_CLOSED',
      });
    });
  });
}
