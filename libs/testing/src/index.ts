export * from './postgres';
export * from './nats';
export * from './given';
export * from './processes';
export * from './flex-client';
export * from './openai-server';
export { startNats, startNatsCluster, type NatsTestServer, type NatsTestServerOptions } from './nats-server';
export * from './raw-http';
export { findOrInstallChromium } from './chromium';
