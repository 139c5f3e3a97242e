// The one recipe every transport module (psockets.ts, rbudp.ts, udt.ts) is built from: the line parser and
// the three argv builders that all lfn-* transports share, completed by what only one program has (its
// extra columns and `#end` keys, and its own options). Each module keeps its types and options; this file
// keeps how they are put together, so a fix to the shared framing lands in all three at once.

import {
  checkBytes,
  digestArgv,
  dispatchLine,
  parseEndBase,
  parseRowBase,
  receiverArgv,
  senderArgv,
  type TransportDigest,
  type TransportEndBase,
  type TransportHeader,
  type TransportPayload,
  type TransportReceiverOptions,
  type TransportRowBase,
  type TransportSenderOptions,
  uint,
} from './common.js';

/** An `#end` key read as an unsigned integer (the field is named after the key in errors). */
export type EndUint = (key: string) => number;

/** Every line a transport's parser can give: the shared records and the program's own. */
export type TransportRecord<Row, End, Extra = never> = TransportHeader | Row | End | Extra | TransportDigest;

export interface TransportProgramSpec<Row, End, Extra, Recv, Send> {
  /** Program name: argv[0] by default and the name in its header. */
  program: string;
  /** Its progress-row columns, the common six first. */
  columns: readonly string[];
  /** The program's own fields of a progress row (the common six are parsed already). */
  row: (fields: string[], text: string) => Omit<Row, keyof TransportRowBase>;
  /** The program's own fields of its `#end` record (the common ones are parsed already). */
  end: (u: EndUint, kv: Map<string, string>, text: string) => Omit<End, keyof TransportEndBase>;
  /** Any other `#name\t` record the program writes; undefined for a name it does not know. */
  extra?: (name: string, text: string) => Extra | undefined;
  /** Appends the receiver's own options to the common receiver argv. */
  receiverArgs?: (argv: string[], opts: Recv) => void;
  /** Appends the sender's own options to the common sender argv. */
  senderArgs: (argv: string[], opts: Send) => void;
}

export interface TransportProgram<Row, End, Extra, Recv, Send> {
  /**
   * Parses one output line (trailing CR/LF ignored). Returns null for the column line and blank lines;
   * throws TransportParseError for anything malformed or of another format version.
   */
  parseLine(line: string): TransportRecord<Row, End, Extra> | null;
  /** argv (argv[0] = program) of a receiver; prefix `['ip', 'netns', 'exec', ns]` as needed. */
  receiverArgv(opts?: Recv): string[];
  /** argv (argv[0] = program) of a sender. Never joined into a shell string. */
  senderArgv(opts: Send): string[];
  /** argv of `--digest`: the payload's SHA-256 without any network. */
  digestArgv(payload: TransportPayload, binary?: string): string[];
}

export function transportProgram<
  Row extends TransportRowBase,
  End extends TransportEndBase,
  Recv extends TransportReceiverOptions,
  Send extends TransportSenderOptions,
  Extra = never,
>(spec: TransportProgramSpec<Row, End, Extra, Recv, Send>): TransportProgram<Row, End, Extra, Recv, Send> {
  const { program, columns } = spec;
  return {
    parseLine: (line) =>
      dispatchLine(program, columns, line, {
        row: (f, text) => ({ ...parseRowBase(f, text), ...spec.row(f, text) }) as Row,
        end: (kv, text) =>
          ({ ...parseEndBase(kv, text), ...spec.end((k) => uint(kv.get(k), k, text), kv, text) }) as End,
        ...(spec.extra ? { extra: spec.extra } : {}),
      }),
    receiverArgv: (opts = {} as Recv) => {
      const argv = receiverArgv(program, opts);
      spec.receiverArgs?.(argv, opts);
      return argv;
    },
    senderArgv: (opts) => {
      const argv = senderArgv(program, opts);
      spec.senderArgs(argv, opts);
      return argv;
    },
    digestArgv: (payload, binary) => digestArgv(program, payload, binary),
  };
}

/** `--sockbuf`: a socket buffer forced as root, 0..1 GiB (0 = the system's); every transport has it. */
export function pushSockbuf(argv: string[], sockbufBytes: number | undefined): void {
  if (sockbufBytes !== undefined)
    argv.push('--sockbuf', checkBytes(sockbufBytes, 'sockbufBytes', 0, 2 ** 30));
}
