// The shared confirm and prompt dialogs: `await confirmAction({...})` from any page, one host in the shell.
import { useEffect, useRef, useState } from 'preact/hooks';
import { createStore, useStore } from '../store.ts';
import { t } from '../i18n/index.ts';
import { Dialog } from './dialog.tsx';

interface ConfirmRequest {
  kind: 'confirm';
  title: string;
  message: string;
  confirmLabel: string;
  danger: boolean;
  resolve: (confirmed: boolean) => void;
}

interface PromptRequest {
  kind: 'prompt';
  title: string;
  label: string;
  value: string;
  confirmLabel: string;
  resolve: (value: string | null) => void;
}

const pending = createStore<ConfirmRequest | PromptRequest | null>(null);

export function confirmAction(options: {
  title: string;
  message: string;
  confirmLabel?: string;
  danger?: boolean;
}): Promise<boolean> {
  return new Promise((resolve) =>
    pending.set({
      kind: 'confirm',
      title: options.title,
      message: options.message,
      confirmLabel: options.confirmLabel ?? t('common.ok'),
      danger: options.danger ?? false,
      resolve,
    }),
  );
}

/** Asks for one line of text; null when cancelled. */
/**
 * Asks to confirm a deletion (a danger dialog), then runs `remove`. A failed request has already
 * been toasted by api(), so nothing more is said here.
 */
export async function confirmDelete(
  options: { title: string; message: string; confirmLabel?: string },
  remove: () => Promise<void>,
): Promise<void> {
  if (!(await confirmAction({ ...options, danger: true }))) return;
  try {
    await remove();
  } catch {
    // toasted
  }
}

export function promptText(options: {
  title: string;
  label: string;
  value?: string;
  confirmLabel?: string;
}): Promise<string | null> {
  return new Promise((resolve) =>
    pending.set({
      kind: 'prompt',
      title: options.title,
      label: options.label,
      value: options.value ?? '',
      confirmLabel: options.confirmLabel ?? t('common.save'),
      resolve,
    }),
  );
}

export function ConfirmHost() {
  const request = useStore(pending);
  const [value, setValue] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (request?.kind === 'prompt') {
      setValue(request.value);
      window.setTimeout(() => input.current?.select(), 0);
    }
  }, [request]);
  if (!request) return null;
  const finish = (confirmed: boolean) => {
    pending.set(null);
    if (request.kind === 'confirm') request.resolve(confirmed);
    else request.resolve(confirmed ? value.trim() : null);
  };
  return (
    <Dialog
      title={request.title}
      open
      onClose={() => finish(false)}
      actions={
        <>
          <button type="button" class="btn" onClick={() => finish(false)}>
            {t('common.cancel')}
          </button>
          <button
            type="submit"
            form="confirm-form"
            class={request.kind === 'confirm' && request.danger ? 'btn btn-danger' : 'btn btn-primary'}
            disabled={request.kind === 'prompt' && value.trim() === ''}
          >
            {request.confirmLabel}
          </button>
        </>
      }
    >
      <form
        id="confirm-form"
        onSubmit={(event) => {
          event.preventDefault();
          finish(true);
        }}
      >
        {request.kind === 'confirm' ? (
          <p>{request.message}</p>
        ) : (
          <label class="field">
            <span class="field-label">{request.label}</span>
            <input
              ref={input}
              class="input"
              value={value}
              maxLength={200}
              onInput={(event) => setValue(event.currentTarget.value)}
            />
          </label>
        )}
      </form>
    </Dialog>
  );
}
