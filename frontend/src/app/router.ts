// A small hash router: routes are "#/runs/abc/live" style, so the service only has to serve
// index.html at `/` and deep links survive a reload without server-side rewrites.
import { useSyncExternalStore } from 'react';

export type Route =
  | { page: 'designer'; specId?: string }
  | { page: 'presets' }
  | { page: 'runs' }
  | { page: 'live'; runId: string }
  | { page: 'results'; runId: string }
  | { page: 'compare'; runIds: string[] }
  | { page: 'campaigns' }
  | { page: 'admin' }
  | { page: 'class' }
  | { page: 'classroom'; path: string[] }
  | { page: 'bench' }
  | { page: 'labs' };

export function parseHash(hash: string): Route {
  const [pathPart = '', query = ''] = hash.replace(/^#/, '').split('?');
  const parts = pathPart.split('/').filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(query);
  switch (parts[0]) {
    case 'presets':
      return { page: 'presets' };
    case 'runs':
      if (parts[1] && parts[2] === 'live') return { page: 'live', runId: parts[1] };
      if (parts[1]) return { page: 'results', runId: parts[1] };
      return { page: 'runs' };
    case 'compare':
      return { page: 'compare', runIds: (params.get('runs') ?? '').split(',').filter(Boolean) };
    case 'campaigns':
      return { page: 'campaigns' };
    case 'admin':
      return { page: 'admin' };
    case 'class':
      return { page: 'class' };
    case 'bench':
      return { page: 'bench' };
    case 'labs':
      return { page: 'labs' };
    case 'classroom':
      return { page: 'classroom', path: parts.slice(1) };
    default: {
      const specId = params.get('spec') ?? undefined;
      return specId ? { page: 'designer', specId } : { page: 'designer' };
    }
  }
}

export function hrefOf(route: Route): string {
  switch (route.page) {
    case 'designer':
      return route.specId ? `#/designer?spec=${encodeURIComponent(route.specId)}` : '#/designer';
    case 'live':
      return `#/runs/${encodeURIComponent(route.runId)}/live`;
    case 'results':
      return `#/runs/${encodeURIComponent(route.runId)}`;
    case 'compare':
      return route.runIds.length
        ? `#/compare?runs=${route.runIds.map(encodeURIComponent).join(',')}`
        : '#/compare';
    case 'classroom':
      return `#/${['classroom', ...route.path].map(encodeURIComponent).join('/')}`;
    default:
      return `#/${route.page}`;
  }
}

export function navigate(route: Route): void {
  window.location.hash = hrefOf(route);
}

function subscribe(fn: () => void): () => void {
  window.addEventListener('hashchange', fn);
  return () => window.removeEventListener('hashchange', fn);
}

export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash);
  return parseHash(hash);
}
