// `npm run bench [-- --quick | --only X]`: the lab's fidelity and cost benchmark (arguments go to
// it), then the web UI's (bundle size, first live point, frame times). Exits non-zero if either fails.
import { spawnSync } from 'node:child_process';

const steps = [
  ['node', ['backend/dist/bench/main.js', ...process.argv.slice(2)]],
  ['npm', ['run', 'build', '-w', 'frontend']],
  ['node', ['frontend/bench/ui-bench.mjs']],
];
let failed = 0;
for (const [cmd, args] of steps) {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`bench: ${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}`);
    failed += 1;
  }
}
process.exit(failed ? 1 : 0);
