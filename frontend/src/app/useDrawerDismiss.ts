// A phone's navigation drawer closes the way people expect: Escape, and the Back button (which
// would otherwise leave the page under the drawer). Opening pushes a history entry Back can pop.
import { useEffect, useRef } from 'react';

const MARK = 'lfnNavDrawer';

export function useDrawerDismiss(open: boolean, close: () => void): void {
  const pushed = useRef(false);
  useEffect(() => {
    if (!open) {
      // Closed some other way (a link, the burger): drop the entry we pushed, quietly.
      if (pushed.current && window.history.state?.[MARK]) window.history.back();
      pushed.current = false;
      return;
    }
    window.history.pushState({ ...window.history.state, [MARK]: true }, '');
    pushed.current = true;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') close();
    };
    const onPop = () => {
      pushed.current = false;
      close();
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener('popstate', onPop);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('popstate', onPop);
    };
  }, [open, close]);
}
