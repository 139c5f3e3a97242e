// The command lines tests and benches start `lfnlab serve` (and `lfnlab worker`) with: a fake (or named) lab on a given
// port, the data and runs directories under the caller's directory, no InfluxDB. Options a caller
// needs beyond these follow in `extra`. Plain JavaScript (types in serveArgs.d.mts) so that
// scripts run by plain node (frontend/bench/ui-bench.mjs) use it as the tests do.
import { join } from 'node:path';

/** @param {import('./serveArgs.d.mts').ServeArgvOptions} o */
export function serveArgv(o) {
  return [
    'serve',
    '--lab',
    o.lab ?? 'fake',
    '--port',
    String(o.port),
    '--data',
    join(o.dir, 'data'),
    '--runs',
    join(o.dir, 'runs'),
    '--influx',
    'off',
    ...(o.extra ?? []),
  ];
}

/** @param {import('./serveArgs.d.mts').WorkerArgvOptions} o */
export function workerArgv(o) {
  return [
    'worker',
    '--queue',
    o.queue,
    '--service',
    o.service,
    '--token-file',
    join(o.dir, `${o.host}.token`),
    '--host-id',
    o.hostId,
    '--lab',
    o.lab ?? 'fake',
    '--labs',
    String(o.labs ?? 1),
    ...(o.fakeSpeed === undefined ? [] : ['--fake-speed', String(o.fakeSpeed)]),
    '--scratch',
    join(o.dir, `scratch-${o.host}`),
  ];
}
