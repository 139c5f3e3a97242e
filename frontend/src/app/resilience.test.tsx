// Resilience from issue 17: a page whose code fails to load no longer white-screens the app, a lost
// connection shows a banner, errors are plain words, and the phone's nav drawer closes on Escape/Back.
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { lazy, type ReactElement, Suspense, useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { mockApi } from '../../test/support/api';
import { renderInApp } from '../../test/support/render';
import { ApiError, get, UNREACHABLE } from '../api/client';
import { ConnectionBanner } from './ConnectionBanner';
import { PageBoundary } from './PageBoundary';
import { retrying } from './pages';
import { useDrawerDismiss } from './useDrawerDismiss';

/** A page slot as App has it: a fresh lazy component on retry (App: makePages()). */
function Shell({ load }: { load: () => Promise<{ default: () => ReactElement }> }) {
  const [Current, setCurrent] = useState(() => lazy(load));
  return (
    <div>
      <nav>navigation stays</nav>
      <PageBoundary resetKey="runs" onRetry={() => setCurrent(() => lazy(load))}>
        <Suspense fallback={<p>loading</p>}>
          <Current />
        </Suspense>
      </PageBoundary>
    </div>
  );
}

function Drawer() {
  const [open, setOpen] = useState(true);
  useDrawerDismiss(open, () => setOpen(false));
  return <p>{open ? 'drawer open' : 'drawer closed'}</p>;
}

describe('loading page code', () => {
  it('a failed import shows "Try again" beside a working app; trying again loads the page', async () => {
    let attempts = 0;
    const load = async () => {
      attempts++;
      if (attempts === 1) throw new TypeError('Failed to fetch dynamically imported module: /assets/Runs.js');
      return { default: () => <p>the runs page</p> };
    };
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    renderInApp(<Shell load={load} />);
    expect(await screen.findByText('This page could not be loaded')).toBeTruthy();
    expect(screen.getByText('navigation stays')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('the runs page')).toBeTruthy();
    expect(attempts).toBe(2);
  });

  it('tries an import again by itself before giving up', async () => {
    let n = 0;
    const flaky = retrying(
      async () => {
        if (++n < 3) throw new Error('network');
        return 'code';
      },
      2,
      1,
    );
    await expect(flaky()).resolves.toBe('code');
    let m = 0;
    const dead = retrying(
      async () => {
        m++;
        throw new Error('down');
      },
      2,
      1,
    );
    await expect(dead()).rejects.toThrow('down');
    expect(m).toBe(3);
  });
});

describe('a lost connection', () => {
  it('says so in plain words (not "Failed to fetch") and shows a banner until the service answers', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('Failed to fetch');
      }),
    );
    renderInApp(<ConnectionBanner />);
    expect(screen.queryByTestId('connection-lost')).toBeNull();
    const err = await get('/api/runs').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toBe(UNREACHABLE);
    expect((err as ApiError).message).not.toMatch(/Failed to fetch/);
    expect(await screen.findByTestId('connection-lost')).toBeTruthy();
    mockApi({ 'GET /api/health': { body: { ok: true } } });
    await act(() => get('/api/health'));
    await waitFor(() => expect(screen.queryByTestId('connection-lost')).toBeNull());
  });
});

describe('the phone navigation drawer', () => {
  it('closes on Escape', async () => {
    render(<Drawer />);
    fireEvent.keyDown(window, { key: 'Escape' });
    expect(await screen.findByText('drawer closed')).toBeTruthy();
  });

  it('closes on Back instead of leaving the page under it', async () => {
    const hash = window.location.hash;
    render(<Drawer />);
    act(() => {
      window.dispatchEvent(new PopStateEvent('popstate', { state: null }));
    });
    expect(await screen.findByText('drawer closed')).toBeTruthy();
    expect(window.location.hash).toBe(hash);
  });
});
