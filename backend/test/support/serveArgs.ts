// The command lines integration tests start `lfnlab serve` with: a fake (or named) lab on a given
// port, the data and runs directories under the test's directory, no InfluxDB. Options a test
// needs beyond these follow in `extra`.
import { join } from 'node:path';

export interface ServeArgvOptions {
  port: number;
  /** The test's directory: data/ and runs/ go under it. */
  dir: string;
  /** fake (default) or real. */
  lab?: string;
  extra?: string[];
}

export function serveArgv(o: ServeArgvOptions): string[] {
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
