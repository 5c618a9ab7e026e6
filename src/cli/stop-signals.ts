// The graceful end of a long-running command (serve, worker): the first SIGINT or SIGTERM asks it
// to finish what it holds and exit 0, instead of the default end.

/** Use in a long-running command: resolves (with the signal's name) on the first SIGINT or SIGTERM. */
export function untilStopSignal(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
