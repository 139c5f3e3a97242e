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
