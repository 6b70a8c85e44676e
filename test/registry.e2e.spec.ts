import { join } from 'node:path';
import { registrySubjects, NatsMessaging } from '@flex/bus';
import { activeRegistrations, fetchCapabilitySnapshot } from '@flex/runtime';
import { natsTestUrl, startNodeProcess, testPrefix, waitFor, type ManagedProcess } from '@flex/testing';
import type {
  RegistryCapabilityView,
  RegistrySnapshot,
} from '../services/registry/src/capability/capability.view';
import { startRegistryHarness, type RegistryHarness } from './integration/registry-harness';

const prefix = testPrefix('registry_e2e');
const STRATEGY = 'StrategyManagerAgent.briefing';
const agentScript = join(__dirname, '..', 'agents', 'reference', 'dist', 'main.js');

/**
 * An agent process killed with SIGKILL never deregisters: the registry must notice the silence.
 * The reference agents declare a 45 s heartbeat timeout; the registry's clock is moved forward one
 * second at a time while the surviving process keeps heartbeating in real time, so only the dead
 * instance falls behind.
 */
describe('an agent process killed with SIGKILL', () => {
  let h: RegistryHarness;
  let nats: NatsMessaging;
  const processes: ManagedProcess[] = [];
  const logs = () => processes.map((p) => `--- ${p.name}\n${p.output().slice(-3000)}`).join('\n');

  const strategy = async (): Promise<RegistryCapabilityView | undefined> =>
    (
      await nats.request<RegistrySnapshot>(registrySubjects(prefix).snapshot, {}, { timeoutMs: 5_000 })
    ).capabilities.find((c) => c.registration.capabilityId === STRATEGY);

  /** Move the registry's clock a second at a time (the sweep runs every 50 ms) until `check` holds. */
  async function advanceUntil<T>(check: () => Promise<T | undefined>, maxSeconds = 120): Promise<T> {
    for (let s = 0; s <= maxSeconds; s++) {
      const value = await check();
      if (value) return value;
      h.clock.advance(1_000);
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    throw new Error(`condition not reached after ${maxSeconds} s of registry time\n${logs()}`);
  }

  function startAgentProcess(name: string): ManagedProcess {
    const p = startNodeProcess(name, agentScript, {
      FLEX_NATS_URL: natsTestUrl(),
      FLEX_NATS_PREFIX: prefix,
      FLEX_AGENTS: STRATEGY,
      FLEX_AGENT_HEARTBEAT_MS: '100',
      PORT: '',
    });
    processes.push(p);
    return p;
  }

  beforeAll(async () => {
    h = await startRegistryHarness('registry_e2e', prefix);
    nats = await NatsMessaging.connect(natsTestUrl(), {
      logger: { warn: () => undefined, error: () => undefined },
    });
  });
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.kill()));
    await nats?.drain();
    await h?.close();
  });

  it('turns inactive after its heartbeat timeout; the capability stays active while another instance lives, then leaves the planner view', async () => {
    const doomed = startAgentProcess('agent-doomed');
    const survivor = startAgentProcess('agent-survivor');
    await waitFor(async () => (await strategy())?.activeInstances === 2, 30_000, logs);
    const before = (await strategy()) as RegistryCapabilityView;
    const doomedInstance = before.instances.find((i) => i.instanceId.includes(`-${doomed.child.pid}-`));
    expect(doomedInstance).toBeDefined();

    await doomed.kill('SIGKILL');
    // Killed, not stopped: nothing said goodbye, so the instance is still listed as active.
    expect(
      (await strategy())?.instances.find((i) => i.instanceId === doomedInstance?.instanceId)?.status,
    ).toBe('active');

    const afterKill = await advanceUntil(async () => {
      const v = await strategy();
      return v?.activeInstances === 1 ? v : undefined;
    });
    expect(afterKill.status).toBe('active');
    expect(afterKill.instances.find((i) => i.instanceId === doomedInstance?.instanceId)?.status).toBe(
      'inactive',
    );
    expect(
      activeRegistrations(await fetchCapabilitySnapshot(nats, prefix)).map((r) => r.capabilityId),
    ).toContain(STRATEGY);

    await survivor.kill('SIGKILL');
    const gone = await advanceUntil(async () => {
      const v = await strategy();
      return v?.status === 'inactive' ? v : undefined;
    });
    expect(gone.activeInstances).toBe(0);
    // What the planner and the executor read: the capability is no longer offered.
    expect(
      activeRegistrations(await fetchCapabilitySnapshot(nats, prefix)).map((r) => r.capabilityId),
    ).not.toContain(STRATEGY);
  });
});
