// `lfnlab reindex`: InfluxDB is a view of the run directories; this rebuilds it from them.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { findRunDirs } from '../report/load.js';
import { InfluxClient } from '../storage/influx.js';
import { reindexRun } from '../storage/reindex.js';
import { SampleWriter } from '../storage/writer.js';
import { type Command, UsageError } from './args.js';

export const reindexCommand: Command = {
  name: 'reindex',
  summary: 'rebuild InfluxDB from run directories (samples, events, summaries)',
  usage: `usage: lfnlab reindex DIR [DIR ...] [--influx URL] [--database NAME] [--user NAME]

Writes every sample, flow event, verdict and summary of each run directory under DIR
(a run, a campaign, or runs/) into InfluxDB. Running it twice stores nothing twice.

  --influx URL      InfluxDB's v1 API (default http://127.0.0.1:8086)
  --database NAME   default lfnlab
  --user NAME       the user tag of the points (default local)`,
  options: { influx: { type: 'string' }, database: { type: 'string' }, user: { type: 'string' } },
  async run(values, positionals) {
    if (positionals.length === 0) throw new UsageError(`a run directory is required\n\n${this.usage}`);
    const missing = positionals.filter((p) => !existsSync(p));
    if (missing.length) throw new UsageError(`no such directory: ${missing.join(', ')}`);
    const dirs = positionals.flatMap((p) => findRunDirs(p));
    if (dirs.length === 0) {
      console.error('lfnlab reindex: no run directories (with events.jsonl) found');
      return 2;
    }
    const url = typeof values.influx === 'string' ? values.influx : 'http://127.0.0.1:8086';
    const client = new InfluxClient({ url });
    try {
      await client.ping();
    } catch (err) {
      console.error(`lfnlab reindex: ${(err as Error).message}; start it with 'bash scripts/influxd.sh'`);
      return 1;
    }
    const writer = await SampleWriter.open({
      client,
      database: typeof values.database === 'string' ? values.database : 'lfnlab',
      retentionPolicy: { name: 'lfnlab', duration: '30d' },
      spoolDir: join(homedir(), '.cache', 'lfnlab', 'reindex-spool'),
    });
    let failed = 0;
    try {
      for (const [i, dir] of dirs.entries()) {
        try {
          const r = await reindexRun(dir, writer, {
            user: typeof values.user === 'string' ? values.user : 'local',
          });
          console.log(
            `[${i + 1}/${dirs.length}] ${r.runId}: ${r.total} samples${r.skipped ? `, ${r.skipped} lines skipped` : ''}`,
          );
        } catch (err) {
          failed += 1;
          console.error(`[${i + 1}/${dirs.length}] ${dir}: ${(err as Error).message}`);
        }
      }
      await writer.drain();
    } finally {
      await writer.close();
    }
    const s = writer.stats();
    console.log(`${s.written} points written, ${s.rejected} rejected, ${s.pending.spool} still spooled`);
    return failed || s.rejected ? 1 : 0;
  },
};
