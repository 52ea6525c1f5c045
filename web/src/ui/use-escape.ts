// Closes a drawer or panel with the Escape key while it is open.
import { useLayoutEffect } from 'preact/hooks';

export function useEscape(open: boolean, close: () => void): void {
  // A layout effect: the key works from the moment the drawer shows, not a frame later.
  useLayoutEffect(() => {
    if (!open) return undefined;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && !event.defaultPrevented) close();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open, close]);
}
