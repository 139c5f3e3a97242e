// A stand-in for the service in component tests: `fetch` answers from a table of routes
// ("GET /api/labs") with JSON fixtures shaped like docs/API.md, records every request, and
// answers anything unrouted with a 404 naming it, so a test never reaches the network.
import { vi } from 'vitest';

export interface ApiCall {
  method: string;
  path: string;
  body: unknown;
}

export type Reply = { status?: number; body?: unknown };
export type Route = Reply | ((call: ApiCall) => Reply);

export function mockApi(routes: Record<string, Route>): { calls: ApiCall[] } {
  const calls: ApiCall[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init.method ?? 'GET').toUpperCase();
    const call: ApiCall = {
      method,
      path: url.pathname + url.search,
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    calls.push(call);
    const route = routes[`${method} ${url.pathname}`];
    const reply: Reply = route
      ? typeof route === 'function'
        ? route(call)
        : route
      : { status: 404, body: { error: `no fixture for ${method} ${url.pathname}` } };
    const status = reply.status ?? 200;
    return new Response(reply.body === undefined ? null : JSON.stringify(reply.body), {
      status,
      headers: { 'content-type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { calls };
}
