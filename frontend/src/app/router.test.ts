import { describe, expect, it } from 'vitest';
import { hrefOf, parseHash, type Route } from './router';

describe('hash router', () => {
  it('round-trips every route', () => {
    const routes: Route[] = [
      { page: 'designer' },
      { page: 'designer', specId: 'abc' },
      { page: 'presets' },
      { page: 'runs' },
      { page: 'live', runId: '2026-x/1' },
      { page: 'results', runId: 'r1' },
      { page: 'compare', runIds: ['a', 'b'] },
      { page: 'admin' },
      { page: 'labs' },
    ];
    for (const r of routes) expect(parseHash(hrefOf(r))).toEqual(r);
  });
});
