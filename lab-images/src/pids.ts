/** Whether a process with this pid exists (signal 0 delivers nothing; it only checks). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
