// Resource limits of the HTTP service, one home for each number (docs/API.md, "Limits").

/** Request bodies: 64 KiB unless a route takes spec or campaign text. */
export const DEFAULT_BODY_LIMIT = 64 * 1024;
/** Routes that carry a spec or campaign text (at most 1 MB of text, JSON-escaped). */
export const TEXT_BODY_LIMIT = 2 * 1024 * 1024;

/** Live WebSockets open at once per user. */
export const MAX_SOCKETS_PER_USER = 16;
/** A live reader this far behind (bytes queued in the socket) is closed with LIVE_BEHIND_CODE. */
export const MAX_LIVE_BUFFERED = 1024 * 1024;
/** "Try again later": the client reconnects with ?cursor= and resumes where it was. */
export const LIVE_BEHIND_CODE = 1013;
