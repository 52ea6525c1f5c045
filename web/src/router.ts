// Client-side routing under /ui/: the path after /ui/ split into segments. The first segment picks
// a page from the routes table (routes.ts); the rest are that page's own (an agent id, a tab...).
import { createStore, useStore } from './store.ts';
import { confirmLeave, wouldLoseChanges } from './ui/unsaved.ts';

export const BASE = '/ui/';

function currentSegments(): string[] {
  const path = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) : '';
  return path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    });
}

const location = createStore<string[]>(currentSegments());
let shownPath = window.location.pathname + window.location.search;
window.addEventListener('popstate', () => {
  const target = window.location.pathname + window.location.search;
  if (!wouldLoseChanges(target)) {
    shownPath = target;
    location.set(currentSegments());
    return;
  }
  // Back or forward out of an editor with unsaved changes: stay until the user agrees to leave.
  window.history.pushState(null, '', shownPath);
  void confirmLeave(target).then((ok) => {
    if (ok) navigate(target, { replace: true });
  });
});

/** The URL of a route: href('chat', 'main') is /ui/chat/main. */
export function href(...segments: string[]): string {
  return BASE + segments.map((segment) => encodeURIComponent(segment)).join('/');
}

export function navigate(url: string, options: { replace?: boolean } = {}): void {
  if (url === window.location.pathname + window.location.search) return;
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  shownPath = window.location.pathname + window.location.search;
  location.set(currentSegments());
}

export function useSegments(): string[] {
  return useStore(location);
}

/** Follows same-page links without a reload (a plain click on an <a href="/ui/...">). */
export function interceptLinks(root: HTMLElement): void {
  root.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
      return;
    const anchor = (event.target as Element | null)?.closest('a');
    if (!anchor || anchor.target || anchor.hasAttribute('download')) return;
    const url = new URL(anchor.href, window.location.href);
    if (url.origin !== window.location.origin || !url.pathname.startsWith(BASE)) return;
    event.preventDefault();
    const target = url.pathname + url.search;
    void confirmLeave(target).then((ok) => {
      if (ok) navigate(target);
    });
  });
}
