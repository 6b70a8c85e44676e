export * from './postgres';
export * from './nats';
export * from './given';
export * from './processes';
export * from './flex-client';
export * from './openai-server';
export * from './raw-http';
