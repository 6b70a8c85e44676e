export default async function globalTeardown(): Promise<void> {
  const stops = ((globalThis as Record<string, unknown>).__flexTestServers ?? []) as Array<
    () => Promise<void>
  >;
  for (const stop of stops.reverse()) await stop();
}
