import { loadConfig } from '@flex/runtime';
import { FlexClient } from '@flex/testing';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';

/**
 * The whole embedded system (gateway, registry, planner, validator, executor, reference agents) in
 * this process, in memory, for one describe block: started before its tests, closed after them.
 * `client()` speaks HTTP to it with a `client` token; `env` adds configuration.
 */
export function useEmbeddedFlex(
  token: string,
  env: Record<string, string> = {},
): { flex: () => EmbeddedFlex; client: () => FlexClient } {
  let flex: EmbeddedFlex | undefined;
  let client: FlexClient | undefined;
  beforeAll(async () => {
    flex = await startEmbedded({
      config: loadConfig({ FLEX_API_TOKENS: `${token}:client`, FLEX_LOG_LEVEL: 'silent', PORT: '0', ...env }),
      dataDir: null,
      agents: true,
    });
    client = new FlexClient(flex.url, token);
  }, 60_000);
  afterAll(async () => {
    await flex?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the embedded system has not started');
    return value;
  };
  return { flex: () => started(flex), client: () => started(client) };
}
