import '@mantine/core/styles.css';
import './index.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { AppProviders, createQueryClient } from './app/providers';
import { SessionProvider } from './auth/session';

const queryClient = createQueryClient();

const root = document.getElementById('root');
if (!root) throw new Error('no #root element');
createRoot(root).render(
  <StrictMode>
    <AppProviders client={queryClient}>
      <SessionProvider>
        <App />
      </SessionProvider>
    </AppProviders>
  </StrictMode>,
);
