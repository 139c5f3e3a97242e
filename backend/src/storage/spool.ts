// The writer's spool: batches InfluxDB could not take yet, on disk, oldest first. One batch of line
// protocol per file, written to a temporary name, fsynced, renamed into place, and the directory
// fsynced: a segment is there whole or not at all. Names carry a sequence number (the order) and
// the line count, so opening a spool reads no data:
//
//   <dir>/spool.json                 {"format":"lfnlab-spool-1","database":…,"retentionPolicy":…}
//   <dir>/lock                       pid of the process writing the spool
//   <dir>/seg-000000000042-5000.lp   line protocol, one point per line, '\n' after each
//
// A segment leaves only after InfluxDB acknowledged it; a crash in between sends it twice, which
// InfluxDB absorbs (same series and timestamp: the same point).
import { closeSync, openSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';

export const SPOOL_FORMAT = 'lfnlab-spool-1';

export interface Segment {
  seq: number;
  lines: number;
  file: string;
}

const SEGMENT = /^seg-(\d{12})-(\d+)\.lp$/;
const held = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export class Spool {
  private segments: Segment[] = [];
  private nextSeq = 0;
  private lineCount = 0;
  private locked = true;

  private constructor(
    readonly dir: string,
    private readonly lockPath: string,
  ) {}

  /**
   * Open (or create) the spool in `dir` for `database`: take its lock, drop half-written
   * temporaries of a crashed process, list what is left, oldest first.
   */
  static async open(
    dir: string,
    target: { database: string; retentionPolicy: string | null },
  ): Promise<Spool> {
    const abs = resolve(dir);
    await mkdir(abs, { recursive: true });
    if (held.has(abs)) throw new Error(`spool ${abs} is already open in this process`);
    const lockPath = join(abs, 'lock');
    takeLock(lockPath);
    held.add(abs);
    const spool = new Spool(abs, lockPath);
    try {
      const metaPath = join(abs, 'spool.json');
      let meta: { format?: string; database?: string; retentionPolicy?: string | null } | null = null;
      try {
        meta = JSON.parse(await readFile(metaPath, 'utf8'));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
          throw new Error(`spool ${abs}: unreadable spool.json: ${String(err)}`);
      }
      const entries = await readdir(abs);
      const segments: Segment[] = [];
      for (const name of entries) {
        const m = SEGMENT.exec(name);
        if (m) segments.push({ seq: Number(m[1]), lines: Number(m[2]), file: join(abs, name) });
        else if (name.startsWith('.tmp-')) await unlink(join(abs, name));
      }
      if (meta && segments.length > 0) {
        if (meta.format !== SPOOL_FORMAT)
          throw new Error(`spool ${abs} is in format ${meta.format}, not ${SPOOL_FORMAT}; move it aside`);
        if (meta.database !== target.database || (meta.retentionPolicy ?? null) !== target.retentionPolicy)
          throw new Error(
            `spool ${abs} holds points for ${meta.database}${meta.retentionPolicy ? `.${meta.retentionPolicy}` : ''}, not ${target.database}${target.retentionPolicy ? `.${target.retentionPolicy}` : ''}`,
          );
      }
      writeFileSync(metaPath, `${JSON.stringify({ format: SPOOL_FORMAT, ...target })}\n`);
      segments.sort((a, b) => a.seq - b.seq);
      spool.segments = segments;
      spool.nextSeq = (segments.at(-1)?.seq ?? -1) + 1;
      spool.lineCount = segments.reduce((n, s) => n + s.lines, 0);
      return spool;
    } catch (err) {
      spool.release();
      throw err;
    }
  }

  /** Segments waiting, oldest first. */
  get size(): number {
    return this.segments.length;
  }

  /** Lines waiting in all segments. */
  get lines(): number {
    return this.lineCount;
  }

  /**
   * The oldest segments, as many as fit in `maxLines` together (at least one): a long outage
   * leaves many small segments, and they are replayed in requests of a normal batch's size.
   */
  oldest(maxLines: number): Segment[] {
    const out: Segment[] = [];
    let n = 0;
    for (const seg of this.segments) {
      if (out.length > 0 && n + seg.lines > maxLines) break;
      out.push(seg);
      n += seg.lines;
    }
    return out;
  }

  /** Append one batch as a new segment, durable when this resolves. */
  async append(lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return;
    const seq = this.nextSeq;
    const tmp = join(this.dir, `.tmp-${seq}.lp`);
    const file = join(this.dir, `seg-${String(seq).padStart(12, '0')}-${lines.length}.lp`);
    const fh = await open(tmp, 'w');
    try {
      await fh.writeFile(`${lines.join('\n')}\n`);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
    await fsyncDir(this.dir);
    this.nextSeq = seq + 1;
    this.segments.push({ seq, lines: lines.length, file });
    this.lineCount += lines.length;
  }

  /** A segment's lines; none when its file is gone (removed by hand). */
  async read(seg: Segment): Promise<string[]> {
    try {
      return (await readFile(seg.file, 'utf8')).split('\n').filter((l) => l !== '');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }

  /** Drop the `count` oldest segments (after InfluxDB took them). */
  async removeOldest(count = 1): Promise<void> {
    for (let i = 0; i < count; i++) {
      const seg = this.segments[0];
      if (!seg) return;
      await unlink(seg.file).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
      this.segments.shift();
      this.lineCount -= seg.lines;
    }
  }

  /** Give up the lock; the segments stay for the next writer. */
  release(): void {
    if (!this.locked) return;
    this.locked = false;
    held.delete(this.dir);
    try {
      if (readFileSync(this.lockPath, 'utf8').trim() === String(process.pid)) unlinkSync(this.lockPath);
    } catch {
      // already gone
    }
  }
}

/** One process per spool: a lock file with its pid; a dead process's lock is taken over. */
function takeLock(lockPath: string): void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeFileSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(lockPath, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid))
        throw new Error(`spool lock ${lockPath} is held by running process ${pid}`);
      unlinkSync(lockPath); // stale: its process is gone (or it was ours, released without close)
    }
  }
  throw new Error(`could not take the spool lock ${lockPath}`);
}
