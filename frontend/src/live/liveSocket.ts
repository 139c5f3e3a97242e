// The run's live WebSocket with resume: after a drop it reconnects with ?cursor=<last seq>, so
// nothing still in the service's catch-up window is lost, and the model ignores duplicates.
import { wsUrl } from '../api/client';
import type { LiveMessage } from '../api/types';
import type { LiveModel } from './liveModel';

export interface LiveConnection {
  close(): void;
}

export function connectLive(
  runId: string,
  model: LiveModel,
  opts: { maxHz?: number; onState?: (s: 'connecting' | 'open' | 'closed') => void } = {},
): LiveConnection {
  let socket: WebSocket | null = null;
  let stopped = false;
  let retryMs = 250;
  let timer: number | undefined;

  const open = () => {
    const q = new URLSearchParams({ maxHz: String(opts.maxHz ?? 10) });
    if (model.lastSeq > 0) q.set('cursor', String(model.lastSeq));
    opts.onState?.('connecting');
    const ws = new WebSocket(wsUrl(`/api/runs/${encodeURIComponent(runId)}/live?${q}`));
    socket = ws;
    ws.onopen = () => {
      retryMs = 250;
      opts.onState?.('open');
    };
    ws.onmessage = (ev) => {
      // A batch may arrive as one array or one message per frame.
      const parsed = JSON.parse(String(ev.data)) as LiveMessage | LiveMessage[];
      for (const m of Array.isArray(parsed) ? parsed : [parsed]) model.apply(m);
    };
    ws.onclose = () => {
      socket = null;
      opts.onState?.('closed');
      if (stopped || model.done) return;
      timer = window.setTimeout(open, retryMs);
      retryMs = Math.min(retryMs * 2, 5000);
    };
  };
  open();
  return {
    close() {
      stopped = true;
      window.clearTimeout(timer);
      socket?.close();
    },
  };
}
