#!/usr/bin/env node
import { main } from '../dist/cli/main.js';

let settled = false;
// Node exits 0 when nothing is left to wait for, even with the command's promise unsettled: a
// command that lost an event (a child's exit, a stream's close) would look like a success.
process.on('beforeExit', () => {
  if (settled) return;
  console.error(
    'lfnlab: the command stopped before finishing (an awaited event never came); treat its output as incomplete',
  );
  process.exitCode = 70;
});

main(process.argv.slice(2)).then(
  (code) => {
    settled = true;
    process.exitCode = code;
  },
  (err) => {
    settled = true;
    console.error(`lfnlab: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
