// window.matchMedia for tests: happy-dom has none, and components lay out by screen width
// (useMediaQuery). One stand-in, answering each query as `matches` says.
import { vi } from 'vitest';

export function matchMediaStub(matches: (query: string) => boolean) {
  return (query: string) => ({
    matches: matches(query),
    media: query,
    onchange: null,
    addEventListener() {},
    removeEventListener() {},
    addListener() {},
    removeListener() {},
    dispatchEvent: () => false,
  });
}

/** A phone-sized screen: every max-width query matches. Undo with vi.unstubAllGlobals(). */
export function phone(): void {
  vi.stubGlobal(
    'matchMedia',
    matchMediaStub((query) => query.includes('max-width')),
  );
}
