// A minimal QMP client: one command per connection. qemu serves one QMP client at a time, and the
// lab's host-side users are short-lived CLI and service calls, so a connection per command is the
// simplest thing that cannot leak a session.
import { connect } from 'node:net';

export class QmpError extends Error {}

/** Runs one QMP command (after the capabilities handshake) and resolves with its `return`. */
export function qmpCommand(socketPath: string, execute: string, timeoutMs = 10_000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const sock = connect(socketPath);
    let buf = '';
    let stage: 'greeting' | 'capabilities' | 'command' = 'greeting';
    const done = (err: Error | null, value?: unknown) => {
      clearTimeout(timer);
      sock.destroy();
      if (err) reject(err);
      else resolve(value);
    };
    const timer = setTimeout(
      () => done(new QmpError(`QMP ${execute} timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
    sock.setEncoding('utf8');
    sock.on('error', (e) => done(new QmpError(`QMP at ${socketPath}: ${e.message}`)));
    sock.on('data', (d: string) => {
      buf += d;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line) continue;
        let msg: { QMP?: unknown; return?: unknown; error?: { desc?: string }; event?: string };
        try {
          msg = JSON.parse(line);
        } catch {
          return done(new QmpError(`QMP sent something that is not JSON: ${line.slice(0, 80)}`));
        }
        if (msg.event) continue;
        if (msg.error) return done(new QmpError(`QMP ${execute}: ${msg.error.desc ?? 'error'}`));
        if (stage === 'greeting' && msg.QMP) {
          stage = 'capabilities';
          sock.write('{"execute":"qmp_capabilities"}\n');
        } else if (stage === 'capabilities' && 'return' in msg) {
          stage = 'command';
          sock.write(`${JSON.stringify({ execute })}\n`);
        } else if (stage === 'command' && 'return' in msg) {
          return done(null, msg.return);
        }
      }
    });
  });
}
