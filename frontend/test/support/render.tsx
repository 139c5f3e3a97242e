// Render a component as the app does: inside the app's own providers (theme, query client), with a
// fresh query client per test and no retries, so a failing request shows at once.
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { AppProviders, createQueryClient } from '../../src/app/providers';

export function renderInApp(ui: ReactElement) {
  const client = createQueryClient({ defaultOptions: { queries: { retry: false, staleTime: 0 } } });
  return { client, ...render(<AppProviders client={client}>{ui}</AppProviders>) };
}
