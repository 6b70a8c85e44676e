import { readModelMigrations } from '@flex/read-models';
import {
  bindHost,
  createDistributedRuntime,
  drainingStop,
  loadConfig,
  type FlexConfig,
  type RunningProcess,
} from '@flex/runtime';
import { resolveApiTokens } from './auth/api-tokens';
import type { GatewayOptions } from './gateway.module';
import { createGatewayApp } from './http/gateway.app';

/**
 * The distributed gateway: its runtime, its HTTP app listening, drained on stop. `options` adds
 * what only a composition root can give it (the policy what-if's decide functions: apps/flex's
 * `gateway-main.js`, the image's default command).
 */
export async function serveGateway(
  options: (config: FlexConfig) => GatewayOptions = () => ({}),
): Promise<RunningProcess> {
  const config = loadConfig();
  const runtime = await createDistributedRuntime(config, {
    service: 'gateway',
    migrations: readModelMigrations,
  });
  const tokens = resolveApiTokens(config.FLEX_API_TOKENS, config.FLEX_DATA_DIR);
  if (tokens.generated)
    runtime.logger.warn('FLEX_API_TOKENS is not set; using the admin token in the data directory', {
      file: `${config.FLEX_DATA_DIR}/api-token`,
    });
  const app = await createGatewayApp(runtime, tokens, options(config));
  const host = bindHost(config, 'distributed');
  await app.listen(config.PORT, host);
  runtime.logger.info('gateway listening', { host, port: config.PORT });
  return drainingStop(runtime, app);
}
