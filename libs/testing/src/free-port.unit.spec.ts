import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort } from './free-port';

describe('freePort', () => {
  const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]);

  it('hands out distinct ports below the ephemeral range, where no outgoing connection takes them', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(new Set(ports).size).toBe(20);
    for (const port of ports) expect(port).toBeLessThan(ephemeralLow);
  });

  it('skips a port something already listens on', async () => {
    const taken = await freePort();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(taken, '127.0.0.1', resolve));
    try {
      const seen: number[] = [];
      // A full round of the slice comes back to `taken`; it is never handed out while it is bound.
      for (let i = 0; i < 2100; i++) seen.push(await freePort());
      expect(seen).not.toContain(taken);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
