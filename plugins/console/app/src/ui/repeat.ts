import { useEffect, useRef } from 'react';

/**
 * Calls `fn` every `everyMs` while `active` and the tab is visible: a check a person waits on
 * (a DNS record they just published) without a frozen page or a reload.
 */
export function useRepeat(fn: () => void, everyMs: number, active: boolean): void {
  const latest = useRef(fn);
  latest.current = fn;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') latest.current();
    }, everyMs);
    return () => clearInterval(timer);
  }, [active, everyMs]);
}
