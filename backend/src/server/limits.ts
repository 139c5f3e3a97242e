// Resource limits of the HTTP service, one home for each number (docs/API.md, "Limits").

/** Request bodies: 64 KiB unless a route takes spec or campaign text. */
export const DEFAULT_BODY_LIMIT = 64 * 1024;
/** Characters in a spec or campaign text (a large campaign is a few KB). */
export const MAX_TEXT_CHARS = 256 * 1024;
/**
 * Routes that carry such a text: room for the longest valid one however it is written (6 bytes a
 * character as a JSON \u escape), so a body is refused as too large only when its text is too long.
 */
export const TEXT_BODY_LIMIT = MAX_TEXT_CHARS * 6 + DEFAULT_BODY_LIMIT;

/** Live WebSockets open at once per user. */
export const MAX_SOCKETS_PER_USER = 16;
/** A live reader this far behind (bytes queued in the socket) is closed with LIVE_BEHIND_CODE. */
export const MAX_LIVE_BUFFERED = 1024 * 1024;
/** "Try again later": the client reconnects with ?cursor= and resumes where it was. */
export const LIVE_BEHIND_CODE = 1013;
