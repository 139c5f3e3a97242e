// happy-dom lacks a few browser APIs Mantine touches; minimal stand-ins keep components renderable.
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import { matchMediaStub } from './media';

afterEach(() => {
  cleanup();
  // Pages navigate by hash and hand drafts over in sessionStorage: start each test afresh.
  window.location.hash = '';
  sessionStorage.clear();
});

if (!window.matchMedia) {
  Object.defineProperty(window, 'matchMedia', { value: matchMediaStub(() => false) });
}
if (!('ResizeObserver' in window)) {
  (window as unknown as { ResizeObserver: unknown }).ResizeObserver = class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
}
window.HTMLElement.prototype.scrollIntoView ??= () => {};
// Textarea autosize listens for web fonts loading.
if (!('fonts' in document) || !document.fonts) {
  const fonts = Object.assign(new EventTarget(), { ready: Promise.resolve(), status: 'loaded' });
  Object.defineProperty(document, 'fonts', { value: fonts, configurable: true });
}
// happy-dom has no 2D canvas: uPlot draws into this stand-in, which accepts every call and
// measures text as zero-wide, so charts mount and keep their legends and labels in the DOM.
if (!document.createElement('canvas').getContext('2d')) {
  const ctx = new Proxy({} as Record<string | symbol, unknown>, {
    get(target, key) {
      if (key in target) return target[key];
      if (key === 'measureText') return () => ({ width: 0 });
      return () => undefined;
    },
    set(target, key, value) {
      target[key] = value;
      return true;
    },
  });
  HTMLCanvasElement.prototype.getContext = (() => ctx) as unknown as HTMLCanvasElement['getContext'];
}
// …nor Path2D, which uPlot builds its lines with.
if (!('Path2D' in globalThis)) {
  (globalThis as unknown as { Path2D: unknown }).Path2D = class {
    constructor() {
      // biome-ignore lint/correctness/noConstructorReturn: every path method is a no-op
      return new Proxy(this, {
        get: (t, k) => (k in t ? (t as Record<string | symbol, unknown>)[k] : () => undefined),
      });
    }
  };
}
