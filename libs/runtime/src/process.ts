/**
 * A process entry point: run `start`, then on SIGTERM / SIGINT run the shutdown it returned once and
 * exit 0; a failure to start (or to stop) is printed and exits 1.
 */
export function runProcess(start: () => Promise<() => Promise<void>>): void {
  start().then(
    (shutdown) => {
      let stopping = false;
      const stop = () => {
        if (stopping) return;
        stopping = true;
        shutdown().then(
          () => process.exit(0),
          (error) => {
            console.error(error);
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
