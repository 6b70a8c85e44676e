import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createGatewayApp, parseApiTokens } from '@flex/gateway';
import { readModelMigrations } from '@flex/read-models';
import { createDistributedRuntime, loadConfig } from '@flex/runtime';
import {
  createTestDatabase,
  natsTestUrl,
  parsePrometheusText,
  testPrefix,
  type PromScrape,
} from '@flex/testing';
import { ExecutorModule } from '../../services/executor/src/executor.module';

export interface ScrapedService {
  scrape(): Promise<{ text: string; parsed: PromScrape }>;
  close(): Promise<void>;
}

/**
 * A distributed gateway or executor started in this process on real Postgres and NATS, its HTTP
 * server real (listening on a free port), for tests that read its `GET /metrics`.
 */
export async function startScrapedService(
  service: 'gateway' | 'executor',
  label: string,
): Promise<ScrapedService> {
  const database = await createTestDatabase(label);
  const config = loadConfig({
    FLEX_DATABASE_URL: database.url,
    FLEX_NATS_URL: natsTestUrl(),
    FLEX_NATS_PREFIX: testPrefix(label),
    FLEX_LOG_LEVEL: 'silent',
  });
  const runtime = await createDistributedRuntime(config, { service, migrations: readModelMigrations });
  let app: INestApplication;
  if (service === 'gateway') app = await createGatewayApp(runtime, parseApiTokens('scrape-token:client'));
  else app = await NestFactory.create(ExecutorModule.forRuntime(runtime), { logger: ['error'] });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  return {
    async scrape() {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
      const text = await response.text();
      return { text, parsed: parsePrometheusText(text) };
    },
    async close() {
      await app.close();
      await runtime.close();
      await database.drop();
    },
  };
}
