// Public API of the transport helpers; the parsing internals of common.ts stay private.
export {
  TRANSPORT_COMMON_COLUMNS,
  TRANSPORT_FORMAT_VERSION,
  type TransportDigest,
  type TransportEndBase,
  type TransportEndReason,
  type TransportHeader,
  TransportParseError,
  type TransportPayload,
  type TransportReceiverOptions,
  type TransportRole,
  type TransportRowBase,
  type TransportSenderOptions,
} from './common.js';
export * from './psockets.js';
export * from './rbudp.js';
export * from './udt.js';
