// A dilated lab sleeps between uses. With `-icount sleep=off` an idle guest does not wait for its
// next timer: qemu jumps guest time straight to it, so an idle guest races through its timers
// (measured: ~530 guest seconds per wall second) and keeps a host core busy doing so. Paused, it
// costs nothing and its clock stands still. Every host-side user of a dilated lab holds it awake
// for as long as it talks to it; the last one to let go pauses it.
//
// Holders are files named after their process in the lab's directory, so a holder that was killed
// is recognised as dead (its pid is gone) and does not keep the lab awake for ever.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive as alive } from './pids.js';
import { QmpError, qmpCommand } from './qmp.js';

function liveHolders(dir: string): string[] {
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => {
    const pid = Number(n.split('-')[0]);
    if (pid > 0 && alive(pid)) return true;
    rmSync(join(dir, n), { force: true });
    return false;
  });
}

/**
 * Resumes the lab's VM and keeps it running until the returned release is called. `same` says
 * whether the lab at this place is still the VM that was held: a lab restarted meanwhile (another
 * qemu on the same sockets) is never paused by a holder of the one before.
 */
export async function holdAwake(
  labDir: string,
  qmpSocket: string,
  same: () => boolean,
): Promise<() => Promise<void>> {
  const dir = join(labDir, 'awake');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const me = join(dir, `${process.pid}-${randomBytes(4).toString('hex')}`);
  writeFileSync(me, '');
  // The holder file exists before `cont`: a releaser that pauses the lab after this point looks
  // again and finds it (see release).
  // qemu answers QMP from its main loop, which a racing guest can hold up for seconds on a loaded
  // host: wait long, and if it never answers let the channel's own hello decide.
  await resume(qmpSocket, 60_000).catch(() => undefined);
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    rmSync(me, { force: true });
    if (same()) await pauseIfUnheld(labDir, qmpSocket);
  };
}

/**
 * Pauses the lab when nobody holds it. A holder that arrived between the look and the `stop` has
 * either sent its `cont` after our `stop` (and wins) or created its file before our second look
 * (and we resume for it). The second look is taken even when `stop` failed: a `stop` that timed
 * out here may still have reached qemu (a busy lab answered it late, and the next run's hello then
 * waited 60 s on a paused VM), and qemu serves QMP clients one at a time, so our `cont` comes after it.
 */
export async function pauseIfUnheld(
  labDir: string,
  qmpSocket: string,
  stopTimeoutMs = 10_000,
): Promise<void> {
  const dir = join(labDir, 'awake');
  if (liveHolders(dir).length > 0) return;
  try {
    await qmpCommand(qmpSocket, 'stop', stopTimeoutMs);
  } finally {
    if (liveHolders(dir).length > 0) await resume(qmpSocket, 60_000);
  }
}

/**
 * `cont` until qemu says the VM runs. One `cont` is not proof: qemu serves one QMP client at a
 * time, a connection that finds it busy can be refused at once, and a releaser's `stop` can land
 * after it (once, a lab stayed paused and the next run's hello waited its 60 s out).
 */
export async function resume(qmpSocket: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = null;
  for (let wait = 50; Date.now() < deadline; wait = Math.min(wait * 2, 2_000)) {
    try {
      await qmpCommand(qmpSocket, 'cont', Math.max(1, deadline - Date.now()));
      const st = (await qmpCommand(qmpSocket, 'query-status', Math.max(1, deadline - Date.now()))) as {
        running?: boolean;
      };
      if (st?.running) return;
      last = new Error(`the VM is still ${JSON.stringify(st)}`);
    } catch (e) {
      // An attempt cut short by the deadline says less than the refusal before it.
      if (!(last && e instanceof QmpError && /timed out/.test(e.message))) last = e;
    }
    await new Promise((r) => setTimeout(r, Math.min(wait, Math.max(0, deadline - Date.now()))));
  }
  throw last instanceof Error ? last : new Error('QMP cont: the VM did not resume');
}
