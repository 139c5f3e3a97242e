// The argv of lfn-flowmeter (emulator/flowmeter): a wire's flows as the lab sees them on its two
// ports (bytes in and out per direction, what it dropped, the flight, RTT from TCP timestamps).
import { checkDeviceName, checkInt } from '../native/argv.js';

export const FLOWMETER_BINARY = 'lfn-flowmeter';

export interface FlowmeterOptions {
  /** The port facing the sender side, and the one facing the receiver side. */
  a: string;
  b: string;
  hz: number;
  binary?: string;
}

export function flowmeterArgv(o: FlowmeterOptions): string[] {
  return [
    o.binary ?? FLOWMETER_BINARY,
    '--a',
    checkDeviceName(o.a),
    '--b',
    checkDeviceName(o.b),
    '--hz',
    checkInt(o.hz, 1, 100, 'hz'),
  ];
}
