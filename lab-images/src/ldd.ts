// Shared libraries a host binary needs, so the image can carry Debian's own tools unchanged.
import { run } from '@lfnlab/kernels';

/** Paths from `ldd` output: `libx.so => /path (0x..)` and the loader's `/path (0x..)`. */
export function parseLdd(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const arrow = /=>\s+(\/\S+)/.exec(line);
    const bare = /^\s*(\/\S+)\s+\(/.exec(line);
    const p = arrow?.[1] ?? bare?.[1];
    if (p) out.push(p);
  }
  return out;
}

export async function sharedLibs(binary: string): Promise<string[]> {
  const r = await run(['ldd', binary]);
  // A static binary: ldd says so and exits 1.
  if (r.code !== 0) return [];
  return parseLdd(r.stdout);
}
