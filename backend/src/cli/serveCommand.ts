import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dataDir } from '@lfnlab/kernels';
import { buildServer } from '../server/buildServer.js';
import { FRONTEND_DIST } from '../server/plugins/static.js';
import { FakeLabDriver } from '../service/fakeLabDriver.js';
import type { LabDriver } from '../service/labDriver.js';
import type { RunQueue } from '../service/queue.js';
import { RealLabDriver } from '../service/realLabDriver.js';
import { defaultHostId, RedisRunQueue } from '../service/redisQueue.js';
import { isRedisUrl, redisUrlForDisplay, withRedisPassword } from '../service/redisUrl.js';
import { Storage } from '../storage/runStorage.js';
import { type Command, UsageError } from './args.js';
import { parseLabCount, parseLabOption, poolLabNames } from './labsOption.js';

/** The one data dir rule (kernels' dataDir): where `lfnlab stack add` keeps its registry too. */
export function defaultDataDir(): string {
  return dataDir();
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** GET /api/health answers 200. Over HTTPS the certificate is not checked: this is our own child. */
function healthy(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const get = url.startsWith('https:') ? httpsGet : httpGet;
    const req = get(`${url}/api/health`, { rejectUnauthorized: false, timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

async function waitForHealth(url: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await healthy(url)) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'the HTTP API, live streams and web UI (--lab fake for a lab-less demo)',
  usage: `usage: lfnlab serve [--host 127.0.0.1] [--port 8080] [--data DIR] [--runs DIR] [--preset-results DIR]
                    [--lab real|fake|NAME] [--labs N] [--influx URL|off] [--grafana URL] [--daemon]
                    [--queue redis://HOST:PORT [--host-id ID] [--workers [--worker-timeout S]]]
                    [--tls-cert FILE --tls-key FILE] [--trust-proxy true|ADDRS]

Serves the API (docs at /api/docs), live WebSockets and, when frontend/dist is
built, the web UI at /. Runs queue per lab and run one at a time; each writes its
run directory under --runs and its samples to InfluxDB.

  --host HOST       address to listen on (default 127.0.0.1)
  --port N          port (default 8080)
  --data DIR        accounts, tokens, quotas, stored specs, the storage spool
                    (default $LFNLAB_DATA, else $XDG_DATA_HOME/lfnlab or ~/.local/share/lfnlab)
  --runs DIR        run directories (default runs/)
  --preset-results DIR
                    the published preset results the preset cards show, and the
                    runs kept by reproductions under way (default presets/results
                    of this checkout)
  --lab real|fake|NAME
                    real: the qemu lab (default); fake: synthetic runs, no lab needed;
                    NAME: labs NAME, NAME-2 … (a lab PC written by 'lfnlab lab iso'
                    runs under its name: --lab labpc01 --labs 1)
  --labs N          keep N labs (default, default-2 … default-N); a run that names
                    no lab joins the shortest line (default: half the cores, as
                    memory allows, at least 1)
  --fake-speed X    fake lab: run time passes X times faster (default 1)
  --queue URL       redis://HOST:PORT: queue runs in Redis with BullMQ (one queue
                    per lab, "lfnlab.<host id>.<lab>"); queued runs then survive
                    restarts of the service and, with appendonly yes, of Redis.
                    Default: in the service's own memory (queued runs are queued
                    again from their run directories at the next start).
                    rediss:// for TLS; redis://USER@HOST:PORT for a Redis ACL user,
                    its password in $LFNLAB_REDIS_PASSWORD (not on the command
                    line, where ps shows it); messages show it as ***
  --host-id ID      names this lab host's queues (default: the host name)
  --workers         with --queue: the labs of these queues are run by \`lfnlab worker\`
                    processes on lab hosts (admin: POST /api/worker-tokens makes their
                    tokens); this service runs no job itself. See docs/DEPLOY.md
  --worker-timeout S
                    seconds a worker may be silent mid-run before it is taken for
                    dead: the run ends failed and partial with what arrived (default 30)
  --influx URL|off  InfluxDB 1.x (default http://127.0.0.1:8086); off: run directories only
  --grafana URL     Grafana for "open in Grafana" links (default http://127.0.0.1:3000)
  --tls-cert FILE   serve HTTPS with this PEM certificate (and --tls-key FILE);
                    session cookies are then Secure
  --trust-proxy X   behind a reverse proxy: believe its X-Forwarded-For/-Proto
                    (true, or its addresses/CIDRs comma-separated); a request
                    it forwarded as https gets a Secure cookie
  --daemon          detach; pid in DATA/serve.pid, log in DATA/serve.log; prints the URL
  -h, --help        this text

The first start creates the user 'admin' with a random password, prints it and
writes it to DATA/admin-password (mode 0600). Requests are logged (JSON lines on
stdout, credentials redacted). To serve a class over a network, see the Security
section of docs/ARCHITECTURE.md. Stop with Ctrl-C (or kill the pid):
running runs are stopped, the lab reset, and their records kept.`,
  options: {
    host: { type: 'string' },
    port: { type: 'string' },
    data: { type: 'string' },
    runs: { type: 'string' },
    'preset-results': { type: 'string' },
    lab: { type: 'string' },
    'fake-speed': { type: 'string' },
    influx: { type: 'string' },
    grafana: { type: 'string' },
    daemon: { type: 'boolean' },
    'tls-cert': { type: 'string' },
    'tls-key': { type: 'string' },
    'trust-proxy': { type: 'string' },
    queue: { type: 'string' },
    'host-id': { type: 'string' },
    workers: { type: 'boolean' },
    labs: { type: 'string' },
    'worker-timeout': { type: 'string' },
  },
  async run(values) {
    const host = str(values.host) ?? '127.0.0.1';
    const port = Number(str(values.port) ?? 8080);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new UsageError('--port must be 0 to 65535');
    const { lab, base: labBase } = parseLabOption(str(values.lab));
    const speed = Number(str(values['fake-speed']) ?? 1);
    if (!(speed > 0 && speed <= 1000)) throw new UsageError('--fake-speed must be above 0 and at most 1000');
    const influxArg = str(values.influx) ?? 'http://127.0.0.1:8086';
    if (influxArg !== 'off' && !/^https?:\/\/./.test(influxArg))
      throw new UsageError('--influx must be an http(s) URL or off');
    const tlsCert = str(values['tls-cert']);
    const tlsKey = str(values['tls-key']);
    if ((tlsCert === undefined) !== (tlsKey === undefined))
      throw new UsageError('--tls-cert and --tls-key go together');
    for (const f of [tlsCert, tlsKey])
      if (f !== undefined && !existsSync(f)) throw new UsageError(`${f}: no such file`);
    const trustArg = str(values['trust-proxy']);
    const trustProxy =
      trustArg === undefined || trustArg === 'false' ? false : trustArg === 'true' ? true : trustArg;
    const queueArg = str(values.queue);
    if (queueArg !== undefined && !isRedisUrl(queueArg))
      throw new UsageError(
        '--queue must be redis://HOST:PORT (or rediss:// for TLS); leave it out for the in-process queue',
      );
    const hostId = str(values['host-id']) ?? defaultHostId();
    if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/.test(hostId))
      throw new UsageError(
        '--host-id must be 1-63 letters, digits, "_" or "-", starting with a letter or digit',
      );
    const workers = values.workers === true;
    if (workers && queueArg === undefined)
      throw new UsageError('--workers needs --queue redis://HOST:PORT (workers take their jobs from Redis)');
    const workerTimeoutS = Number(str(values['worker-timeout']) ?? 30);
    if (!(workerTimeoutS >= 2 && workerTimeoutS <= 3600))
      throw new UsageError('--worker-timeout must be 2 to 3600 seconds');
    const labCount = parseLabCount(str(values.labs), (l) => console.error(l));
    const dataDir = resolve(str(values.data) ?? defaultDataDir());
    const runsDir = resolve(str(values.runs) ?? 'runs');
    const presetResults = str(values['preset-results']);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });

    if (values.daemon) {
      const logFile = join(dataDir, 'serve.log');
      const fd = openSync(logFile, 'a');
      const bin = fileURLToPath(new URL('../../bin/lfnlab.js', import.meta.url));
      const args = process.argv.slice(2).filter((a) => a !== '--daemon');
      const child = spawn(process.execPath, [bin, ...args], {
        detached: true,
        stdio: ['ignore', fd, fd],
        cwd: process.cwd(),
      });
      closeSync(fd);
      writeFileSync(join(dataDir, 'serve.pid'), `${child.pid}\n`);
      child.unref();
      const url = `${tlsCert ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
      const up = await waitForHealth(url, 30_000);
      console.log(
        up
          ? `lfnlab serve running at ${url} (pid ${child.pid}; log ${logFile})`
          : `lfnlab serve did not answer at ${url} within 30 s; see ${logFile}`,
      );
      console.log(`  first start? the admin password is in ${join(dataDir, 'admin-password')}`);
      return up ? 0 : 1;
    }

    const log = (l: string) => console.log(l);
    const storage = await Storage.open({
      url: influxArg === 'off' ? null : influxArg,
      spoolDir: join(dataDir, 'spool'),
      log,
    });
    const labPool = poolLabNames(labCount, labBase);
    const driver: LabDriver =
      lab === 'fake'
        ? new FakeLabDriver({ timeScale: speed, labs: labPool })
        : new RealLabDriver(log, labPool);
    let queue: RunQueue | undefined;
    if (queueArg !== undefined) {
      const redisQueue = new RedisRunQueue({
        url: withRedisPassword(queueArg, process.env.LFNLAB_REDIS_PASSWORD),
        hostId,
        log,
        oneRunPerLab: !workers,
      });
      try {
        await redisQueue.ready();
      } catch (err) {
        await redisQueue.close();
        console.error(`lfnlab serve: ${(err as Error).message}`);
        return 1;
      }
      const warning = await redisQueue.durabilityWarning();
      if (warning) log(`queue: ${warning}`);
      queue = redisQueue;
    }
    const server = await buildServer({
      queue,
      labsOnWorkers: workers,
      labPool,
      workerSilenceMs: workerTimeoutS * 1000,
      dataDir,
      runsDir,
      ...(presetResults ? { presetResultsDir: resolve(presetResults) } : {}),
      driver,
      storage,
      staticDir: FRONTEND_DIST,
      grafanaUrl: str(values.grafana),
      tls: tlsCert && tlsKey ? { cert: tlsCert, key: tlsKey } : null,
      trustProxy,
      logger: { level: 'info', stream: process.stdout },
      log,
    });
    const address = await server.app.listen({ host, port });
    console.log(
      `lfnlab serve: ${address} (lab: ${lab}${lab === 'fake' ? `, ${speed}x` : ''}${labCount > 1 ? ` × ${labCount}` : ''}; queue: ${queueArg ? `${redisUrlForDisplay(queueArg)} as ${hostId}${workers ? ', labs on workers' : ''}` : 'in-process'}; influx: ${influxArg}; data ${dataDir}; runs ${runsDir})`,
    );
    console.log(`  API docs: ${address}/api/docs`);
    if (server.admin)
      console.log(
        `  first start: sign in as '${server.admin.username}' with password ${server.admin.password}\n  (also in ${server.admin.file}; change it with PATCH /api/users/:id)`,
      );
    await new Promise<void>((done) => {
      const stop = (sig: string) => {
        console.log(`\n${sig}: stopping runs in flight and closing…`);
        server
          .close()
          .then(() => storage.close())
          .finally(done);
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
    return 0;
  },
};
