// Ctrl-C (or SIGTERM) during a command that runs many runs (campaign, preset, qualify): the run in
// progress is cleaned up, finished runs are kept, and the same command resumes where it stopped.

export interface StopSignals {
  signal: AbortSignal;
  /** Stop listening (in a finally: the process may go on to other work). */
  release: () => void;
}

export function stopOnSignals(): StopSignals {
  const abort = new AbortController();
  const stop = () => {
    if (!abort.signal.aborted)
      console.error('\nstopping after cleaning up the current run; run the same command again to resume');
    abort.abort();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return {
    signal: abort.signal,
    release: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}
