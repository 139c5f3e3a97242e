// When the lab goes away under a run (qemu killed, the agent dead, the channel cut): say which, and
// take what is left of the lab down so the next run boots a fresh one instead of meeting a corpse.
import { labDown, readLab } from '@lfnlab/lab-images';

/** The message for a run whose control channel died; the lab is stopped and its state removed. */
export async function retireLostLab(labName: string, cause: Error): Promise<string> {
  const rec = readLab(labName);
  if (rec?.remote)
    return `the lab PC '${labName}' at ${rec.remote.host}:${rec.remote.port} stopped answering mid-run (${cause.message}); check the PC and its network, then run again`;
  const qemuAlive = rec !== null;
  const what = qemuAlive
    ? `the lab '${labName}' stopped answering mid-run (${cause.message})`
    : `the lab '${labName}' died mid-run: its qemu process is gone (${cause.message})`;
  try {
    await labDown(labName);
    return `${what}; it was shut down, the next run boots a fresh lab`;
  } catch (err) {
    return `${what}; shutting it down failed too (${(err as Error).message}): run 'lfnlab lab down --name ${labName}'`;
  }
}
