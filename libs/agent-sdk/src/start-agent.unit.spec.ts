import { InProcessMessaging } from '@flex/bus';
import { describeAgentSdkBehaviour } from './test-support/agent-sdk.behaviour';

const quiet = { warn: () => undefined, error: () => undefined };
let n = 0;

describeAgentSdkBehaviour('InProcessMessaging', async () => {
  const messaging = new InProcessMessaging({ logger: quiet });
  return { instance: async () => messaging, prefix: `t_sdk_unit_${++n}`, close: () => messaging.drain() };
});
