// Toasts: short notices in a corner. Errors stay until closed or 8 s pass; others go after 4 s.
import { createStore, useStore } from '../store.ts';
import { t } from '../i18n/index.ts';

export type ToastKind = 'info' | 'success' | 'error';

interface Toast {
  id: number;
  kind: ToastKind;
  text: string;
}

const toasts = createStore<Toast[]>([]);
let nextId = 1;

export function dismissToast(id: number): void {
  toasts.update((list) => list.filter((toast) => toast.id !== id));
}

export function toast(text: string, kind: ToastKind = 'info'): void {
  const id = nextId++;
  // The same message twice in a row is shown once.
  toasts.update((list) => [...list.filter((toast) => toast.text !== text), { id, kind, text }].slice(-4));
  window.setTimeout(() => dismissToast(id), kind === 'error' ? 8000 : 4000);
}

export function ToastHost() {
  const list = useStore(toasts);
  return (
    <div class="toasts" aria-live="polite">
      {list.map((item) => (
        <div
          key={item.id}
          class={`toast toast-${item.kind}`}
          role={item.kind === 'error' ? 'alert' : 'status'}
        >
          <span>{item.text}</span>
          <button
            type="button"
            class="icon-btn"
            aria-label={t('ui.dismiss')}
            onClick={() => dismissToast(item.id)}
          >
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
