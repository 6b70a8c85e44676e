import { bindHost, ConfigError, loadConfig } from './config';
import { natsAuthOf } from './nats-auth';

describe('loadConfig: NATS identity and credentials', () => {
  it('reads the identity, its password and the TLS files', () => {
    const config = loadConfig({
      FLEX_NATS_USER: 'executor',
      FLEX_NATS_PASSWORD: 's3cret',
      FLEX_NATS_TLS_CA: '/ca.crt',
    });
    expect(natsAuthOf(config)).toEqual({
      user: 'executor',
      password: 's3cret',
      nkeySeed: undefined,
      credsFile: undefined,
      tls: { caFile: '/ca.crt', certFile: undefined, keyFile: undefined },
    });
    expect(natsAuthOf(loadConfig({})).tls).toBeUndefined();
  });

  it.each([
    ['a password without a user', { FLEX_NATS_PASSWORD: 'p' }, 'FLEX_NATS_USER'],
    ['an NKey seed without a user', { FLEX_NATS_NKEY_SEED: 'SU…' }, 'FLEX_NATS_USER'],
    [
      'two credentials',
      { FLEX_NATS_USER: 'u', FLEX_NATS_PASSWORD: 'p', FLEX_NATS_CREDS: '/c' },
      'FLEX_NATS_CREDS',
    ],
    ['a client certificate without its key', { FLEX_NATS_TLS_CERT: '/c.crt' }, 'FLEX_NATS_TLS_KEY'],
    ['a user that is no identity name', { FLEX_NATS_USER: 'a.b' }, 'FLEX_NATS_USER'],
    ['a rate of zero', { FLEX_REGISTRATIONS_PER_MINUTE: '0' }, 'FLEX_REGISTRATIONS_PER_MINUTE'],
  ])('fails fast on %s, naming the variable', (_name, env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(variable));
  });

  it('defaults the registration rate to a burst of 100, then 60 a minute', () => {
    expect(loadConfig({})).toMatchObject({ FLEX_REGISTRATIONS_PER_MINUTE: 60, FLEX_REGISTRATION_BURST: 100 });
  });
});

describe('FLEX_HOST: where the HTTP server listens', () => {
  it('defaults to loopback for the embedded system and every interface for a distributed service', () => {
    const config = loadConfig({});
    expect(bindHost(config, 'embedded')).toBe('127.0.0.1');
    expect(bindHost(config, 'distributed')).toBe('0.0.0.0');
  });

  it.each(['0.0.0.0', '127.0.0.1', '::', '::1', 'localhost', 'flex-gateway.internal'])('takes %s', (host) => {
    const config = loadConfig({ FLEX_HOST: host });
    expect(bindHost(config, 'embedded')).toBe(host);
    expect(bindHost(config, 'distributed')).toBe(host);
  });

  it.each(['http://0.0.0.0', '0.0.0.0:3000', 'a b', '-bad-', 'host_name', '10.0.0.0/8'])(
    'refuses %s, naming FLEX_HOST',
    (host) => {
      expect(() => loadConfig({ FLEX_HOST: host })).toThrow(/FLEX_HOST/);
    },
  );
});

describe('draining and stream replicas', () => {
  it('defaults to 25 s of draining and one copy of the event stream', () => {
    expect(loadConfig({})).toMatchObject({ FLEX_SHUTDOWN_GRACE_MS: 25_000, FLEX_NATS_STREAM_REPLICAS: 1 });
    expect(loadConfig({ FLEX_SHUTDOWN_GRACE_MS: '30000', FLEX_NATS_STREAM_REPLICAS: '3' })).toMatchObject({
      FLEX_SHUTDOWN_GRACE_MS: 30_000,
      FLEX_NATS_STREAM_REPLICAS: 3,
    });
  });

  it.each([
    ['FLEX_NATS_STREAM_REPLICAS', '0'],
    ['FLEX_NATS_STREAM_REPLICAS', '6'],
    ['FLEX_NATS_STREAM_REPLICAS', 'three'],
    ['FLEX_SHUTDOWN_GRACE_MS', '0'],
    ['FLEX_SHUTDOWN_GRACE_MS', '1.5'],
  ])('refuses %s=%s, naming it', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(
      new RegExp(`^invalid configuration: ${variable}: `),
    );
  });
});
