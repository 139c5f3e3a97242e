export interface ServeArgvOptions {
  port: number;
  /** The caller's directory: data/ and runs/ go under it. */
  dir: string;
  /** fake (default) or real. */
  lab?: string;
  extra?: string[];
}

/** `serve --lab LAB --port PORT --data DIR/data --runs DIR/runs --influx off …extra`. */
export function serveArgv(o: ServeArgvOptions): string[];

export interface WorkerArgvOptions {
  /** The service's Redis URL and the service's URL. */
  queue: string;
  service: string;
  /** The caller's directory: HOST.token is read from it, scratch-HOST/ goes under it. */
  dir: string;
  host: string;
  hostId: string;
  /** fake (default), real or a lab name. */
  lab?: string;
  labs?: number;
  fakeSpeed?: number;
}

/** `worker --queue … --service … --token-file DIR/HOST.token --host-id … --lab … --labs N [--fake-speed X] --scratch DIR/scratch-HOST`. */
export function workerArgv(o: WorkerArgvOptions): string[];
