// `npm run bench [-- --quick | --only X]`: the lab's fidelity and cost benchmark (arguments go to
// it; it saves its tables under bench/results/), then the web UI's (bundle size, first live point,
// frame times), whose report is saved there too. Exits non-zero if either fails.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';

let failed = 0;
const step = (cmd, args, save) => {
  const r = spawnSync(cmd, args, {
    stdio: save ? ['inherit', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
  });
  if (save) {
    process.stdout.write(r.stdout ?? '');
    mkdirSync('bench/results', { recursive: true });
    writeFileSync(`bench/results/${new Date().toISOString().replace(/[:.]/g, '-')}-ui.txt`, r.stdout ?? '');
  }
  if (r.status !== 0) {
    console.error(`bench: ${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}`);
    failed += 1;
  }
};
step('node', ['backend/dist/bench/main.js', ...process.argv.slice(2)]);
step('npm', ['run', 'build', '-w', 'frontend']);
step('node', ['frontend/bench/ui-bench.mjs'], true);
process.exit(failed ? 1 : 0);
