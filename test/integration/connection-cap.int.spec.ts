import { loadConfig } from '@flex/runtime';
import { rawRequest, waitFor } from '@flex/testing';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { head, openRaw, type RawClient } from './raw-socket';

/**
 * FLEX_LIMIT_CONNECTIONS (issue 12, point 6) on the embedded Flex over real sockets: past the cap a
 * new connection is closed at once, unanswered; once held ones close, new ones are served again.
 */
const CAP = 4;

describe('the server-wide connection cap', () => {
  let flex: EmbeddedFlex;
  const held: RawClient[] = [];

  beforeAll(async () => {
    flex = await startEmbedded({
      config: loadConfig({
        FLEX_API_TOKENS: 'cap-client-token:client',
        FLEX_LOG_LEVEL: 'silent',
        PORT: '0',
        FLEX_LIMIT_CONNECTIONS: String(CAP),
        // The held connections idle between requests: no timeout may close them during the test.
        FLEX_LIMIT_HEADERS_TIMEOUT_MS: '60000',
        FLEX_LIMIT_REQUEST_TIMEOUT_MS: '60000',
        FLEX_LIMIT_IDLE_TIMEOUT_MS: '60000',
      }),
      dataDir: null,
      agents: false,
    });
  }, 60_000);

  afterAll(async () => {
    for (const client of held) client.socket.destroy();
    await flex?.close();
  });

  /** A keep-alive connection the server has accepted and answered on, left open. */
  async function holdOne(): Promise<RawClient> {
    const client = await openRaw(flex.port);
    client.send(head('GET', '/healthz'));
    await waitFor(async () => client.received().includes('"status":"ok"'), 10_000, client.received);
    held.push(client);
    return client;
  }

  it('closes a connection past FLEX_LIMIT_CONNECTIONS unanswered, and serves new ones once others have closed', async () => {
    for (let i = 0; i < CAP; i += 1) await holdOne();
    const refused: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const extra = await openRaw(flex.port);
      extra.send(head('GET', '/healthz'));
      refused.push((await extra.closed) - extra.openedAt);
      expect(extra.received()).toBe('');
    }
    await expect(rawRequest(flex.port, { method: 'GET', target: '/healthz' }, 10_000)).rejects.toThrow();
    expect(held.every((client) => !client.isClosed())).toBe(true);

    held.pop()?.socket.destroy();
    const freed = Date.now();
    await waitFor(
      async () => (await rawRequest(flex.port, { method: 'GET', target: '/healthz' })).status === 200,
      10_000,
      () => 'a connection was freed, but new ones are still refused',
    );
    const servedAgainAfterMs = Date.now() - freed;
    // Back at the cap with one more held connection: the next is refused again.
    await holdOne();
    const extra = await openRaw(flex.port);
    await extra.closed;
    const figures = { cap: CAP, refusedWithinMs: Math.max(...refused), servedAgainAfterMs };
    console.info(`connection cap: ${JSON.stringify(figures)}`);
  });
});
