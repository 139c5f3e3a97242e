// `lfnlab worker`: a lab host working its share of the service's run queues on Redis. It listens
// on nothing: it connects out to Redis (BullMQ, a worker per lab queue, taking up to --labs N jobs
// at once, one per local lab) and to the service (HTTP(S) with its worker token), runs each job
// on a free local lab and hands the service the samples as they come (spooled on disk while the
// service is away) and the run directory at the end. Every 5 s it tells the service its labs and
// what they run (GET /api/health lists workers).
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { packageVersion } from '../run/codeVersion.js';
import { FakeLabDriver } from '../service/fakeLabDriver.js';
import type { LabDriver } from '../service/labDriver.js';
import { RealLabDriver } from '../service/realLabDriver.js';
import { HOST_ID } from '../service/redisKeys.js';
import { RedisRunQueue } from '../service/redisQueue.js';
import { isRedisUrl, redisUrlForDisplay, withRedisPassword } from '../service/redisUrl.js';
import { LocalExecutor } from '../service/runExecutor.js';
import { WORKER_TOKEN_PREFIX } from '../service/workerTokens.js';
import { LabSlots } from '../worker/labSlots.js';
import { runOnWorker } from '../worker/runOnWorker.js';
import { ServiceClient } from '../worker/serviceClient.js';
import { type Command, UsageError } from './args.js';
import { parseLabCount, parseLabOption, poolLabNames } from './labsOption.js';

/** How often a worker tells the service it is there. */
const HEARTBEAT_MS = 5000;

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

function defaultScratch(): string {
  if (process.env.XDG_CACHE_HOME) return join(process.env.XDG_CACHE_HOME, 'lfnlab', 'worker');
  return process.env.HOME ? join(homedir(), '.cache', 'lfnlab', 'worker') : resolve('.lfnlab-worker');
}

export const workerCommand: Command = {
  name: 'worker',
  summary: 'run the service’s queued runs on this lab host (Redis queue, worker token)',
  usage: `usage: lfnlab worker --queue redis://HOST:PORT --service URL --token-file FILE
                     [--host-id ID] [--lab real|fake|NAME] [--labs N] [--fake-speed X]
                     [--scratch DIR]

Works the run queues named by --host-id on Redis (BullMQ), as \`lfnlab serve
--queue … --workers\` fills them, on N labs of its own: up to N runs at once, one
per lab. For each run it asks the service to start it (the service refuses a run
that is not queued, so none runs twice), streams samples and events to the
service as they come (the live view works as for local runs; while the service
is away they wait on disk, in SCRATCH/RUN.spool, and are replayed in order when
it is back), uploads what of the run directory the service lacks (each file
checked by SHA-256) and reports how it ended. It listens on no port.

  --queue URL       the service's Redis: redis://HOST:PORT, rediss:// for TLS;
                    an ACL user as redis://USER@HOST:PORT with its password in
                    $LFNLAB_REDIS_PASSWORD (never on the command line)
  --service URL     the service: http://127.0.0.1:8080 or https://HOST:PORT
                    (a private CA: NODE_EXTRA_CA_CERTS=ca.pem)
  --token-file F    a file holding this host's worker token (lfnw_…), made by an
                    admin with POST /api/worker-tokens {"host": "NAME"}; keep it 0600
  --host-id ID      whose queues to work: the service's --host-id (default: the
                    host name the token was made for)
  --lab real|fake|NAME
                    real: this host's qemu labs (default); NAME: its qemu labs
                    named NAME, NAME-2 … (instead of default, default-2 …);
                    fake: synthetic runs
  --labs N          keep N labs (default, default-2 … default-N) and run up to N
                    runs at once (default: half the cores, as memory allows, at
                    least 1)
  --fake-speed X    fake lab: run time passes X times faster (default 1)
  --scratch DIR     run directories before upload, and their spools of batches the
                    service has not taken yet (default ~/.cache/lfnlab/worker)
  -h, --help        this text

Stop with Ctrl-C (or SIGTERM): the runs in progress are stopped, recorded as
aborted and handed to the service (waiting up to 30 s for a service that is away). A worker killed outright leaves its run to the service,
which ends it failed and partial with what was streamed (serve --worker-timeout).`,
  options: {
    queue: { type: 'string' },
    service: { type: 'string' },
    'token-file': { type: 'string' },
    'host-id': { type: 'string' },
    lab: { type: 'string' },
    labs: { type: 'string' },
    'fake-speed': { type: 'string' },
    scratch: { type: 'string' },
  },
  async run(values) {
    const queueArg = str(values.queue);
    if (queueArg === undefined || !isRedisUrl(queueArg))
      throw new UsageError('--queue must be redis://HOST:PORT (or rediss:// for TLS): the service’s Redis');
    const serviceArg = str(values.service);
    if (serviceArg === undefined || !/^https?:\/\/[^/]/.test(serviceArg))
      throw new UsageError('--service must be the service’s http:// or https:// URL');
    const tokenFile = str(values['token-file']);
    if (tokenFile === undefined)
      throw new UsageError('--token-file is required (a file with a worker token)');
    if (!existsSync(tokenFile)) throw new UsageError(`--token-file ${tokenFile}: no such file`);
    const token = readFileSync(tokenFile, 'utf8').trim();
    if (!token.startsWith(WORKER_TOKEN_PREFIX))
      throw new UsageError(
        `--token-file ${tokenFile} holds no worker token (they start with ${WORKER_TOKEN_PREFIX}; an admin makes one with POST /api/worker-tokens)`,
      );
    const { lab, base: labBase } = parseLabOption(str(values.lab));
    const speed = Number(str(values['fake-speed']) ?? 1);
    if (!(speed > 0 && speed <= 1000)) throw new UsageError('--fake-speed must be above 0 and at most 1000');
    const hostArg = str(values['host-id']);
    if (hostArg !== undefined && !HOST_ID.test(hostArg))
      throw new UsageError(
        '--host-id must be 1-63 letters, digits, "_" or "-", starting with a letter or digit',
      );
    const scratchDir = resolve(str(values.scratch) ?? defaultScratch());
    const labCount = parseLabCount(str(values.labs), (l) => console.error(l));

    const log = (l: string) => console.log(l);
    const client = new ServiceClient({ url: serviceArg, token, log });
    let host: string;
    try {
      host = await client.hello();
    } catch (err) {
      console.error(`lfnlab worker: ${(err as Error).message}`);
      return 1;
    }
    const hostId = hostArg ?? host;
    const slots = new LabSlots(poolLabNames(labCount, labBase));
    const queue = new RedisRunQueue({
      url: withRedisPassword(queueArg, process.env.LFNLAB_REDIS_PASSWORD),
      hostId,
      log,
      slots,
    });
    try {
      await queue.ready();
    } catch (err) {
      await queue.close();
      console.error(
        `lfnlab worker: ${(err as Error).message} (is redis-server running, and the URL and password right?)`,
      );
      return 1;
    }
    const driver: LabDriver =
      lab === 'fake'
        ? new FakeLabDriver({ timeScale: speed, labs: slots.names })
        : new RealLabDriver(log, slots.names);
    const executor = new LocalExecutor(driver);
    queue.process((job, signal, workerLab) =>
      runOnWorker({ client, executor, scratchDir, log }, job, signal, workerLab),
    );
    // The service's list of workers: this one's labs and their runs, now and every few seconds.
    const instance = randomBytes(6).toString('hex');
    const beat = (leaving = false) =>
      client
        .heartbeat({ instance, machine: hostname(), version: packageVersion(), labs: slots.state(), leaving })
        .catch(() => undefined); // the service away: the next beat tells it
    void beat();
    const beating = setInterval(() => void beat(), HEARTBEAT_MS);
    slots.on('change', () => void beat());
    console.log(
      `lfnlab worker: host ${host}, working queues lfnlab.${hostId}.* on ${redisUrlForDisplay(queueArg)} for ${serviceArg} (lab: ${lab}${lab === 'fake' ? `, ${speed}x` : ''} × ${labCount}: ${slots.names.join(', ')}; scratch ${scratchDir}); listening on nothing`,
    );
    await new Promise<void>((done) => {
      const stop = (sig: string) => {
        console.log(`\n${sig}: stopping the runs in progress (if any), handing them over, closing…`);
        clearInterval(beating);
        queue
          .close()
          .then(() => beat(true))
          .finally(done);
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
    return 0;
  },
};
