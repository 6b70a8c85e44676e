import { NatsMessaging, type Messaging } from '@flex/bus';
import { natsTestUrl, testPrefix } from '@flex/testing';
import { describeAgentSdkBehaviour } from './test-support/agent-sdk.behaviour';

const quiet = { warn: () => undefined, error: () => undefined };
const prefix = testPrefix('agent_sdk');
let n = 0;

// Every "process" (agent instance, registry, executor) gets its own connection, as in production.
describeAgentSdkBehaviour('NatsMessaging', async () => {
  const opened: NatsMessaging[] = [];
  return {
    instance: async (): Promise<Messaging> => {
      const messaging = await NatsMessaging.connect(natsTestUrl(), { logger: quiet });
      opened.push(messaging);
      return messaging;
    },
    prefix: `${prefix}_${++n}`,
    close: async () => {
      await Promise.all(opened.map((m) => m.drain()));
    },
  };
});
