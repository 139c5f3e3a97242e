import { useEffect, useState } from 'react';

/** Re-render at most every `ms` while a store changes: the page chrome need not follow every sample. */
export function useThrottledVersion(
  subscribe: (fn: () => void) => () => void,
  getVersion: () => number,
  ms = 250,
): number {
  const [version, setVersion] = useState(getVersion);
  useEffect(() => {
    let timer: number | undefined;
    const unsub = subscribe(() => {
      if (timer !== undefined) return;
      timer = window.setTimeout(() => {
        timer = undefined;
        setVersion(getVersion());
      }, ms);
    });
    return () => {
      unsub();
      window.clearTimeout(timer);
    };
  }, [subscribe, getVersion, ms]);
  return version;
}
