// Host end of the control channel: HMAC-signed JSON lines over qemu's virtio-serial socket.
// One request id per call; results and errors come back with that id, process output and exits
// arrive as events. A heartbeat keeps the agent's watchdog from tearing the session down.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { connect, type Socket } from 'node:net';

export const PROTO_VERSION = 1;

export interface Frame {
  v: number;
  sid: string;
  seq: number;
  type: string;
  id?: number;
  body?: unknown;
}

export function signFrame(key: Buffer, frame: Frame): string {
  const payload = JSON.stringify(frame);
  return `${payload}\t${createHmac('sha256', key).update(payload).digest('hex')}\n`;
}

/** Returns the frame when its MAC is right, otherwise null: unauthenticated input is not parsed. */
export function verifyFrame(key: Buffer, line: string): Frame | null {
  const i = line.lastIndexOf('\t');
  if (i < 0) return null;
  const payload = line.slice(0, i);
  const mac = Buffer.from(line.slice(i + 1).trim(), 'utf8');
  const want = Buffer.from(createHmac('sha256', key).update(payload).digest('hex'), 'utf8');
  if (mac.length !== want.length || !timingSafeEqual(mac, want)) return null;
  return JSON.parse(payload) as Frame;
}

export class ChannelError extends Error {}
/** How long the agent may stay silent (it answers a ping every second) before the lab counts as gone. */
export const DEFAULT_SILENCE_MS = 20_000;
export class LabBusyError extends ChannelError {}

export interface Hello {
  proto: number;
  agent: string;
  sid: string;
  kernel: string;
  bootId: string;
  uptimeS: number;
  running: number;
}

export interface ExitEvent {
  name: string;
  code: number;
  signal: string;
  ms: number;
  stdout?: string;
  stderr: string;
  stdoutDropped?: number;
  /** The lab's CLOCK_MONOTONIC at the exit, ms (agents before the timetable did not say). */
  monoMs?: number;
}

/** A timetable item the agent carried out (see `schedule`): when, on the lab's clock, and what came of it. */
export interface FiredEvent {
  tag: string;
  /** The time asked for, ms from t0. */
  atMs: number;
  /** When it happened: the lab's CLOCK_MONOTONIC, and ms from t0. */
  monoMs: number;
  tMs: number;
  pid?: number;
  error?: string;
  ok?: boolean;
  results?: { argv: string[]; code: number; stdout: string; stderr: string; ms: number; error?: string }[];
}

/** The lab's clock as the last heartbeat reported it, with the host time it arrived. */
export interface LabClockReading {
  monoMs: number;
  hostMs: number;
}

export interface OutputEvent {
  name: string;
  data: string;
}

export interface ChannelOptions {
  timeoutMs?: number;
  watchdogMs?: number;
  silenceMs?: number;
}

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

export class Channel extends EventEmitter {
  private seq = 0;
  private nextId = 1;
  private sid = '';
  private pending = new Map<number, Pending>();
  private buf = '';
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;
  /** While the hello is out, only frames of the session it opens are accepted. */
  private helloNonce = '';
  /** When the agent last said anything (a pong at the least, every second). */
  private lastHeard = Date.now();
  hello: Hello | undefined;
  /** The lab's clock from the latest heartbeat: how the host follows guest time during a run. */
  labClock: LabClockReading | undefined;

  private constructor(
    private readonly sock: Socket,
    private readonly key: Buffer,
  ) {
    super();
    sock.setEncoding('utf8');
    sock.on('data', (d: string) => this.onData(d));
    sock.on('close', () => this.onClose(new ChannelError('control channel closed')));
    sock.on('error', (e) => this.onClose(new ChannelError(`control channel: ${e.message}`)));
  }

  /**
   * Connect and say hello. qemu serves one client at a time: when another holds the channel the
   * hello is not answered, and after `timeoutMs` this fails with LabBusyError.
   */
  static async open(socketPath: string, key: Buffer, opts: ChannelOptions = {}) {
    const sock = await new Promise<Socket>((resolve, reject) => {
      const s = connect(socketPath);
      s.once('connect', () => resolve(s));
      s.once('error', (e) => reject(new ChannelError(`cannot reach the lab at ${socketPath}: ${e.message}`)));
    });
    return Channel.over(sock, key, opts);
  }

  /** Say hello over a stream already connected (a lab PC's TLS connection, remote.ts). */
  static async over(sock: Socket, key: Buffer, opts: ChannelOptions = {}) {
    const ch = new Channel(sock, key);
    const nonce = randomBytes(16).toString('hex');
    ch.helloNonce = nonce;
    const timeout = opts.timeoutMs ?? 5000;
    try {
      ch.hello = (await ch.call(
        'hello',
        { proto: PROTO_VERSION, client: 'lfnlab', nonce, watchdogMs: opts.watchdogMs ?? 10_000 },
        timeout,
        nonce,
      )) as Hello;
    } catch (err) {
      ch.close();
      if (err instanceof ChannelError && /timed out/.test(err.message)) {
        throw new LabBusyError(
          `the lab did not answer within ${timeout / 1000} s: another lfnlab process may hold its control channel, or it is still booting`,
        );
      }
      throw err;
    }
    ch.sid = ch.hello.sid;
    // The socket stays open when the agent dies inside a live qemu: only its silence tells.
    const silenceMs = opts.silenceMs ?? DEFAULT_SILENCE_MS;
    ch.lastHeard = Date.now();
    ch.heartbeat = setInterval(() => {
      const quiet = Date.now() - ch.lastHeard;
      if (quiet > silenceMs) {
        ch.sock.destroy();
        ch.onClose(
          new ChannelError(
            `the lab stopped answering: no reply for ${Math.round(quiet / 1000)} s (its agent died or qemu hangs)`,
          ),
        );
        return;
      }
      ch.send('ping', 0, {});
    }, 1000);
    ch.heartbeat.unref();
    return ch;
  }

  private send(type: string, id: number, body: unknown, sid = this.sid): void {
    if (this.closed) return;
    this.seq += 1;
    this.sock.write(signFrame(this.key, { v: PROTO_VERSION, sid, seq: this.seq, type, id, body }));
  }

  /** One request, answered by a `result` (resolves) or an `error` (rejects). */
  call<T = unknown>(type: string, body: unknown = {}, timeoutMs = 120_000, helloNonce?: string): Promise<T> {
    if (this.closed) return Promise.reject(new ChannelError('control channel closed'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ChannelError(`${type} timed out after ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.send(type, id, body, helloNonce ?? this.sid);
    });
  }

  private onData(d: string): void {
    this.buf += d;
    for (let nl = this.buf.indexOf('\n'); nl >= 0; nl = this.buf.indexOf('\n')) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      const f = verifyFrame(this.key, line);
      // Frames of an earlier session (buffered in the port while nobody listened) are not ours.
      const ours = this.sid
        ? f?.sid === this.sid
        : f?.sid.startsWith(`${this.helloNonce}.`) || f?.sid === this.helloNonce;
      if (!f || !ours) continue;
      this.lastHeard = Date.now();
      this.onFrame(f);
    }
  }

  private onFrame(f: Frame): void {
    const p = f.id ? this.pending.get(f.id) : undefined;
    if (p && (f.type === 'result' || f.type === 'hello' || f.type === 'pong')) {
      this.pending.delete(f.id as number);
      p.resolve(f.body);
    } else if (p && f.type === 'error') {
      this.pending.delete(f.id as number);
      p.reject(new ChannelError(String((f.body as { message?: string })?.message ?? 'agent error')));
    } else if (f.type === 'pong') {
      const mono = (f.body as { monotonicMs?: number } | undefined)?.monotonicMs;
      if (typeof mono === 'number') {
        this.labClock = { monoMs: mono, hostMs: Date.now() };
        this.emit('clock', this.labClock);
      }
    } else if (f.type === 'output' || f.type === 'exit' || f.type === 'fired') {
      this.emit(f.type, f.body);
    }
  }

  private onClose(err: Error): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.emit('close', err);
  }

  close(): void {
    this.sock.end();
    this.sock.destroy();
    this.onClose(new ChannelError('control channel closed'));
  }
}
