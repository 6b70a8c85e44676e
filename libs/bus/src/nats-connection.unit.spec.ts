import { natsConnectionOptions } from './nats-connection';

const reconnect = {
  maxReconnectAttempts: -1,
  reconnectTimeWait: 250,
  reconnectJitter: 250,
  waitOnFirstConnect: true,
  // No stack captured up front for every request and timer.
  noAsyncTraces: true,
};

describe('natsConnectionOptions', () => {
  it('without credentials: only the servers, the name, quick, jittered, endless reconnects and no async traces', () => {
    expect(natsConnectionOptions('nats://n:4222', 'flex-x')).toEqual({
      servers: 'nats://n:4222',
      name: 'flex-x',
      ...reconnect,
    });
  });

  it('a user gets its own inboxes (the only ones its permissions let it read)', () => {
    expect(
      natsConnectionOptions('nats://n', 'x', { user: 'executor', password: 'p', tls: { caFile: '/ca' } }),
    ).toEqual({
      servers: 'nats://n',
      name: 'x',
      ...reconnect,
      inboxPrefix: '_INBOX.executor',
      user: 'executor',
      pass: 'p',
      tls: { caFile: '/ca' },
    });
  });

  it.each([
    ['two credentials', { user: 'u', password: 'p', nkeySeed: 'SU' }],
    ['a password without a user', { password: 'p' }],
    ['an NKey without a user', { nkeySeed: 'SU' }],
    ['a user that is no identity name', { user: 'a.b', password: 'p' }],
    ['a certificate without its key', { tls: { certFile: '/c' } }],
  ])('fails fast on %s', (_name, auth) => {
    expect(() => natsConnectionOptions('nats://n', 'x', auth)).toThrow(
      expect.objectContaining({ code: 'INVALID_BUS_OPTIONS' }),
    );
  });
});
