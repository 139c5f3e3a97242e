// A browser whose every max-width media query matches: a phone-sized screen for components that
// lay out differently there (useMediaQuery). Undo with vi.unstubAllGlobals() after each test.
import { vi } from 'vitest';

export function phone(): void {
  vi.stubGlobal('matchMedia', (query: string) => ({
    matches: query.includes('max-width'),
    media: query,
    onchange: null,
    addEventListener() {},
    removeEventListener() {},
    addListener() {},
    removeListener() {},
    dispatchEvent: () => false,
  }));
}
