import 'reflect-metadata';
import { readModelMigrations } from '@flex/read-models';
import {
  bindHost,
  createDistributedRuntime,
  drainingStop,
  loadConfig,
  runProcess,
  type RunningProcess,
} from '@flex/runtime';
import { resolveApiTokens } from './auth/api-tokens';
import { createGatewayApp } from './http/gateway.app';

async function main(): Promise<RunningProcess> {
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
  const app = await createGatewayApp(runtime, tokens);
  const host = bindHost(config, 'distributed');
  await app.listen(config.PORT, host);
  runtime.logger.info('gateway listening', { host, port: config.PORT });
  return drainingStop(runtime, app);
}

runProcess(main);
