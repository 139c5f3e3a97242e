import '@mantine/core/styles.css';
import './index.css';
import { createTheme, MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { SessionProvider } from './auth/session';

// Shade 8 of blue keeps white-on-primary text above WCAG AA contrast (4.5:1).
const theme = createTheme({ primaryColor: 'blue', primaryShade: { light: 8, dark: 6 }, defaultRadius: 'sm' });
// Mantine's dimmed grey (#868e96) is 3.3:1 on white; this one passes WCAG AA for small text.
const cssVariablesResolver = () => ({
  variables: {},
  light: { '--mantine-color-dimmed': '#5f666d' },
  dark: {},
});

const queryClient = new QueryClient({
  defaultOptions: { queries: { refetchOnWindowFocus: false, staleTime: 2000 } },
});

const root = document.getElementById('root');
if (!root) throw new Error('no #root element');
createRoot(root).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="light" cssVariablesResolver={cssVariablesResolver}>
      <QueryClientProvider client={queryClient}>
        <SessionProvider>
          <App />
        </SessionProvider>
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
