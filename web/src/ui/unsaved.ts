// Unsaved edits are never dropped without a question: an editor with changes registers a guard, and
// leaving it (a link, the back button, closing its dialog, reloading or closing the tab) asks first.
import { useLayoutEffect, useState } from 'preact/hooks';
import { t } from '../i18n/index.ts';
import { confirmAction } from './confirm.tsx';

interface Guard {
  /** What would be lost, in words: `agent "main"`. */
  what: string;
  /** Paths under this prefix stay in the editor (its tabs), so going there asks nothing. */
  stayPrefix: string | undefined;
}

const guards = new Set<Guard>();

function blockUnload(event: BeforeUnloadEvent): void {
  event.preventDefault();
  // Older browsers show their own question only when returnValue is set.
  event.returnValue = '';
}

/** While `dirty`, leaving asks before the changes to `what` are lost. */
export function useUnsavedChanges(dirty: boolean, what: string, stayPrefix?: string): void {
  // A layout effect: the guard stands from the first changed keystroke, not a frame later.
  useLayoutEffect(() => {
    if (!dirty) return undefined;
    const guard: Guard = { what, stayPrefix };
    guards.add(guard);
    window.addEventListener('beforeunload', blockUnload);
    return () => {
      guards.delete(guard);
      window.removeEventListener('beforeunload', blockUnload);
    };
  }, [dirty, what, stayPrefix]);
}

/** Asks to drop unsaved changes to `what`; true when there are none or the user agrees. */
export function confirmDiscard(what: string): Promise<boolean> {
  return confirmAction({
    title: t('ui.unsaved.title'),
    message: t('ui.unsaved.message', { what }),
    confirmLabel: t('ui.unsaved.confirm'),
    danger: true,
  });
}

function blockingGuard(path: string): Guard | undefined {
  const stays = (prefix: string | undefined) =>
    prefix !== undefined &&
    (path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`));
  return [...guards].find((entry) => !stays(entry.stayPrefix));
}

/** Whether going to `path` would drop unsaved changes. */
export function wouldLoseChanges(path: string): boolean {
  return blockingGuard(path) !== undefined;
}

/** True when going to `path` drops nothing, or the user agreed to drop it. */
export async function confirmLeave(path: string): Promise<boolean> {
  const guard = blockingGuard(path);
  return guard ? confirmDiscard(guard.what) : true;
}

export interface EditedDraft<T> {
  /** The value being edited, or null while the editor is closed. */
  value: T | null;
  open(initial: T): void;
  change(value: T): void;
  /** Closes without asking (after a save). */
  discard(): void;
  /** Closes, asking first when the value changed since `open`. */
  close(): Promise<void>;
}

/** The draft of an editor dialog: closing it with changes asks, and so does leaving the page. */
export function useEditedDraft<T>(describe: (value: T) => string): EditedDraft<T> {
  const [state, setState] = useState<{ value: T; initial: T } | null>(null);
  const changed = state !== null && JSON.stringify(state.value) !== JSON.stringify(state.initial);
  const what = state ? describe(state.value) : '';
  useUnsavedChanges(changed, what);
  return {
    value: state?.value ?? null,
    open: (initial) => setState({ value: initial, initial }),
    change: (value) => setState((current) => current && { ...current, value }),
    discard: () => setState(null),
    close: async () => {
      if (!changed || (await confirmDiscard(what))) setState(null);
    },
  };
}
