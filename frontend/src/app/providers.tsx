// The providers every page renders inside: Mantine with the app's theme and TanStack Query. The
// entry point (main.tsx) and the component tests both use these, so tests see what users see.
import { createTheme, MantineProvider } from '@mantine/core';
import { QueryClient, type QueryClientConfig, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiError } from '../api/client';

/** Retry outages (status 0, 5xx) a few times; a 4xx (not found, not allowed) will not change. */
export const shouldRetry = (failures: number, err: unknown) =>
  failures < 3 && !(err instanceof ApiError && err.status >= 400 && err.status < 500);

// Shade 8 of blue keeps white-on-primary text above WCAG AA contrast (4.5:1).
export const theme = createTheme({
  primaryColor: 'blue',
  primaryShade: { light: 8, dark: 6 },
  defaultRadius: 'sm',
});
// Mantine's dimmed grey (#868e96) is 3.3:1 on white; this one passes WCAG AA for small text.
const cssVariablesResolver = () => ({
  variables: {},
  light: { '--mantine-color-dimmed': '#5f666d' },
  dark: {},
});

/** The app's query client; tests pass overrides (no retries) on top of the same defaults. */
export function createQueryClient(config: QueryClientConfig = {}): QueryClient {
  return new QueryClient({
    ...config,
    defaultOptions: {
      ...config.defaultOptions,
      queries: {
        refetchOnWindowFocus: false,
        staleTime: 2000,
        retry: shouldRetry,
        ...config.defaultOptions?.queries,
      },
    },
  });
}

export function AppProviders({ client, children }: { client: QueryClient; children: ReactNode }) {
  return (
    <MantineProvider theme={theme} defaultColorScheme="light" cssVariablesResolver={cssVariablesResolver}>
      <QueryClientProvider client={client}>{children}</QueryClientProvider>
    </MantineProvider>
  );
}
