// Ctrl-C (or SIGTERM) during a command that runs many runs (campaign, preset, qualify): the run in
// progress is cleaned up, finished runs are kept, and the same command resumes where it stopped.
// SIGUSR2 asks for a gentler stop: the runs in progress finish and are kept, no new one starts.
// A long dilated run is worth minutes of wall time, so a sitting that must end soon drains
// rather than throws its runs away.

export interface StopSignals {
  /** Stop now: the runs in progress are stopped and cleaned up. */
  signal: AbortSignal;
  /** Start no new run (also set when `signal` is). */
  drain: AbortSignal;
  /** Whether either was asked for: the command ends early and can be resumed. */
  stopped: () => boolean;
  /** Stop listening (in a finally: the process may go on to other work). */
  release: () => void;
}

export function stopOnSignals(): StopSignals {
  const abort = new AbortController();
  const drain = new AbortController();
  const stop = () => {
    if (!abort.signal.aborted)
      console.error('\nstopping after cleaning up the current run; run the same command again to resume');
    abort.abort();
    drain.abort();
  };
  const finish = () => {
    if (!drain.signal.aborted)
      console.error(
        '\nfinishing the runs in progress, then stopping (Ctrl-C to stop them now); run the same command again to resume',
      );
    drain.abort();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.on('SIGUSR2', finish);
  return {
    signal: abort.signal,
    drain: drain.signal,
    stopped: () => drain.signal.aborted,
    release: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.off('SIGUSR2', finish);
    },
  };
}

/** How to stop a command that runs many runs; one text for every such command's --help. */
export const STOP_HELP = `Stopping: Ctrl-C (or SIGTERM) stops the runs in progress, cleans them up and keeps
the finished ones; SIGUSR2 (kill -USR2 PID) lets the runs in progress finish and
starts no new one. Either way the command exits 130; run it again to resume.`;
