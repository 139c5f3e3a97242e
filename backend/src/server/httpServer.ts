// The Node server under Fastify, built here so every limit on a connection is in one place:
// a whole request (headers and body) must arrive within requestTimeoutMs, an idle connection is
// closed, and at most maxConnections are open at once. Optionally HTTPS (--tls-cert/--tls-key).
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';

export interface ConnectionLimits {
  /** A request whose headers and body are not all in by then is answered 408 and closed. */
  requestTimeoutMs: number;
  /** Headers must be in by then (at most requestTimeoutMs). */
  headersTimeoutMs: number;
  /** An open keep-alive connection with no request is closed after this. */
  keepAliveTimeoutMs: number;
  /** A socket with no traffic at all is destroyed after this. */
  idleTimeoutMs: number;
  /** Connections beyond this are refused at accept. */
  maxConnections: number;
}

export const DEFAULT_LIMITS: ConnectionLimits = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 15_000,
  keepAliveTimeoutMs: 10_000,
  idleTimeoutMs: 120_000,
  maxConnections: 1024,
};

export interface TlsFiles {
  cert: string;
  key: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A Fastify serverFactory with these limits (and TLS when given). */
export function serverFactory(limits: ConnectionLimits, tls: TlsFiles | null) {
  return (handler: Handler): Server => {
    const options = {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // Node checks the two timeouts above on this period (30 s by default): check often enough
      // that a slow body is cut close to its deadline.
      connectionsCheckingInterval: Math.max(250, Math.min(5_000, limits.requestTimeoutMs / 4)),
    };
    const server: Server = tls
      ? createHttpsServer({ ...options, cert: readFileSync(tls.cert), key: readFileSync(tls.key) }, handler)
      : createServer(options, handler);
    server.setTimeout(limits.idleTimeoutMs);
    server.maxConnections = limits.maxConnections;
    return server;
  };
}
