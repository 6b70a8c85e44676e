import { loadConfig } from '@flex/runtime';
import { FlexClient } from '@flex/testing';
import { startEmbedded } from '../../apps/flex/src/embedded/embedded';
import { describeRunStreams } from '../../services/gateway/src/runs/test-support/run-streams.behaviour';

const TOKENS = 'streams-client:client,streams-operator:operator';

/** Embedded mode: in-memory PGlite and the store-backed bus, reference agents in-process. */
describeRunStreams('embedded', async () => {
  const config = loadConfig({ FLEX_API_TOKENS: TOKENS, FLEX_LOG_LEVEL: 'silent', PORT: '0' });
  const flex = await startEmbedded({ config, dataDir: null, agents: true });
  return {
    client: new FlexClient(flex.url, 'streams-client'),
    operator: new FlexClient(flex.url, 'streams-operator'),
    stored: (runId) => flex.runtime.store.readStream(`run-${runId}`),
    logs: () => '',
    close: () => flex.close(),
  };
});
