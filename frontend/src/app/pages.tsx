// The pages, loaded on demand so the first paint (log in, header) stays small. A page's code can
// fail to arrive (the service restarting, a flaky network): each import is tried a few times, and
// makePages() builds fresh lazy components so "Try again" really fetches again (React keeps a
// failed lazy component failed for good).
import { type ComponentType, lazy } from 'react';

const RETRIES = 2;
const RETRY_DELAY_MS = 700;

/** `load`, tried again after a pause when it fails, up to `retries` more times. */
export function retrying<T>(
  load: () => Promise<T>,
  retries = RETRIES,
  delayMs = RETRY_DELAY_MS,
): () => Promise<T> {
  return async () => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await load();
      } catch (e) {
        if (attempt >= retries) throw e;
        await new Promise((r) => setTimeout(r, delayMs * (attempt + 1)));
      }
    }
  };
}

// biome-ignore lint/suspicious/noExplicitAny: each page takes its own props
type AnyPage = ComponentType<any>;
const page = (load: () => Promise<{ default: AnyPage }>) => lazy(retrying(load));

export function makePages() {
  return {
    DesignerPage: page(() => import('../designer/DesignerPage').then((m) => ({ default: m.DesignerPage }))),
    PresetsPage: page(() => import('../presets/PresetsPage').then((m) => ({ default: m.PresetsPage }))),
    RunsPage: page(() => import('../runs/RunsPage').then((m) => ({ default: m.RunsPage }))),
    LivePage: page(() => import('../live/LivePage').then((m) => ({ default: m.LivePage }))),
    ResultsPage: page(() => import('../results/ResultsPage').then((m) => ({ default: m.ResultsPage }))),
    ComparePage: page(() => import('../compare/ComparePage').then((m) => ({ default: m.ComparePage }))),
    CampaignsPage: page(() =>
      import('../campaigns/CampaignsPage').then((m) => ({ default: m.CampaignsPage })),
    ),
    LabsPage: page(() => import('../labs/LabsPage').then((m) => ({ default: m.LabsPage }))),
    AdminPage: page(() => import('../admin/AdminPage').then((m) => ({ default: m.AdminPage }))),
    ChartBenchPage: page(() =>
      import('../bench/ChartBenchPage').then((m) => ({ default: m.ChartBenchPage })),
    ),
    ClassRunsPage: page(() => import('../admin/ClassRunsPage').then((m) => ({ default: m.ClassRunsPage }))),
    ClassroomPage: page(() =>
      import('../classroom/ClassroomPage').then((m) => ({ default: m.ClassroomPage })),
    ),
  };
}

export type Pages = ReturnType<typeof makePages>;
