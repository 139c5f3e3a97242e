// "Connection lost" while the service cannot be reached (a request failed at the network, or the
// browser says it is offline), checking again every few seconds until it answers.
import { Alert } from '@mantine/core';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { get, isReachable, onReachability } from '../api/client';

const RECHECK_MS = 3000;

function useOnline(): boolean {
  return useSyncExternalStore(
    (fn) => {
      window.addEventListener('online', fn);
      window.addEventListener('offline', fn);
      return () => {
        window.removeEventListener('online', fn);
        window.removeEventListener('offline', fn);
      };
    },
    () => navigator.onLine,
  );
}

export function ConnectionBanner() {
  const reachable = useSyncExternalStore(onReachability, isReachable);
  const online = useOnline();
  const lost = !reachable || !online;
  const [tries, setTries] = useState(0);
  useEffect(() => {
    if (!lost) return;
    // Any answer (even a 401) means the service is back; api() flips `reachable` on its own.
    const t = window.setInterval(() => {
      setTries((n) => n + 1);
      void get('/api/health').catch(() => undefined);
    }, RECHECK_MS);
    return () => window.clearInterval(t);
  }, [lost]);
  if (!lost) return null;
  return (
    <Alert color="orange" variant="filled" radius={0} role="status" data-testid="connection-lost" py={6}>
      {online
        ? 'Connection to the lfnlab service lost. Retrying every few seconds; what you entered stays here.'
        : 'This device is offline. The page reconnects by itself when the network is back.'}
      {tries > 0 ? ` (tried ${tries}×)` : ''}
    </Alert>
  );
}
