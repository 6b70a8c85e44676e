import 'reflect-metadata';
import { loadConfig, runProcess } from '@flex/runtime';
import { startEmbedded } from './embedded';

/** `npm start`: everything in one process, data under FLEX_DATA_DIR (default .flex/). */
async function main(): Promise<() => Promise<void>> {
  const config = loadConfig();
  const flex = await startEmbedded({ config });
  const lines = [
    `Flex is running (embedded mode) at ${flex.url}`,
    `  data:   ${config.FLEX_DATA_DIR}`,
    flex.tokens.generated
      ? `  token:  ${flex.tokens.generated}   (admin; saved in ${config.FLEX_DATA_DIR}/api-token)`
      : '  tokens: from FLEX_API_TOKENS',
    `  try:    curl -N -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d @examples/envelope.json ${flex.url}/api/v1/flex/run.stream`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return () => flex.close();
}

runProcess(main);
