// Browser notifications (opt-in) when one of the viewer's runs starts or ends, so a student can
// leave the tab while 20 runs are ahead. The choice is kept in localStorage; the browser asks for
// permission once, when the person turns it on.
import { useEffect, useRef, useSyncExternalStore } from 'react';
import type { Run } from '../api/types';
import { runTitle } from '../runs/runTitle';

const KEY = 'lfnlab.notify';
const listeners = new Set<() => void>();

export const notificationsSupported = () => typeof window !== 'undefined' && 'Notification' in window;

export function notificationsOn(): boolean {
  return (
    notificationsSupported() && Notification.permission === 'granted' && localStorage.getItem(KEY) === '1'
  );
}

/** Turn on (asking the browser first) or off; resolves with what is now in force. */
export async function setNotifications(on: boolean): Promise<boolean> {
  if (!on) localStorage.removeItem(KEY);
  else if (notificationsSupported()) {
    const p =
      Notification.permission === 'default'
        ? await Notification.requestPermission()
        : Notification.permission;
    if (p === 'granted') localStorage.setItem(KEY, '1');
  }
  for (const fn of listeners) fn();
  return notificationsOn();
}

export function useNotificationsOn(): boolean {
  return useSyncExternalStore(
    (fn) => {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    notificationsOn,
    () => false,
  );
}

export interface RunNote {
  runId: string;
  title: string;
  body: string;
}

const ENDED = new Set(['completed', 'failed', 'aborted']);

/** What changed between two looks at the viewer's runs that is worth a notification. */
export function runNotes(before: ReadonlyMap<string, Run['status']>, runs: readonly Run[]): RunNote[] {
  const out: RunNote[] = [];
  for (const r of runs) {
    const was = before.get(r.id);
    if (!was || was === r.status) continue;
    if (r.status === 'running' && was === 'queued')
      out.push({
        runId: r.id,
        title: `Run started: ${runTitle(r)}`,
        body: 'It has the lab now; watch it live.',
      });
    else if (ENDED.has(r.status) && !ENDED.has(was))
      out.push({
        runId: r.id,
        title: `Run ${r.status}: ${runTitle(r)}`,
        body:
          r.status === 'completed'
            ? `Verdict: ${r.verdict ?? 'none'}. The results are ready.`
            : (r.error ?? ''),
      });
  }
  return out;
}

/** Notify about the viewer's runs as they start and end (when turned on). */
export function useRunNotifications(mine: readonly Run[] | undefined, open: (runId: string) => void): void {
  const seen = useRef<Map<string, Run['status']> | null>(null);
  const on = useNotificationsOn();
  useEffect(() => {
    if (!mine) return;
    const before = seen.current;
    seen.current = new Map(mine.map((r) => [r.id, r.status]));
    if (!before || !on) return;
    for (const n of runNotes(before, mine)) {
      const note = new Notification(n.title, { body: n.body, tag: `lfnlab-${n.runId}` });
      note.onclick = () => {
        window.focus();
        open(n.runId);
      };
    }
  }, [mine, on, open]);
}
