import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const SLICE = 2000;
const LOWEST = 10_000;

/**
 * A local TCP port nobody listens on, for a server a test starts and tells its port to others
 * (nats-server's client and route ports, Postgres, a service's HTTP port).
 *
 * Asking the kernel for port 0 and closing again hands out a port from the ephemeral range, the same
 * range every outgoing connection takes its local port from: on a busy machine a connection to
 * Postgres or NATS can take it before the server binds it, and the server dies with "address already
 * in use". So ports come from below the ephemeral range, where no outgoing connection lands, each
 * Jest worker from a slice of its own (so two workers never pick the same one), round robin within
 * the slice, each checked free by binding it. Where the range leaves no room below it, port 0 it is.
 */
export async function freePort(): Promise<number> {
  const slice = portSlice();
  if (!slice) return kernelPort();
  for (let tries = 0; tries < SLICE; tries++) {
    const port = slice.from + (slice.next++ % SLICE);
    if (await bindable(port)) return port;
  }
  return kernelPort();
}

let cached: { from: number; next: number } | null | undefined;

function portSlice(): { from: number; next: number } | null {
  if (cached !== undefined) return cached;
  const ephemeralLow = ephemeralRangeLow();
  const slices = Math.floor((ephemeralLow - LOWEST) / SLICE);
  if (slices < 1) return (cached = null);
  // Jest numbers its workers from 1; the parent process (global setup) and plain node take slice 0.
  const worker = Number(process.env.JEST_WORKER_ID ?? 0) || 0;
  const from = LOWEST + (worker % slices) * SLICE;
  return (cached = { from, next: Math.floor(Math.random() * SLICE) });
}

function ephemeralRangeLow(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    return Number(low) || 0;
  } catch {
    return 0;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
