// A modal dialog on the native <dialog> element: it traps focus, and Esc closes it (as "cancel").
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { t } from '../i18n/index.ts';

export interface DialogProps {
  title: string;
  open: boolean;
  onClose: () => void;
  children: ComponentChildren;
  /** Buttons of the footer. */
  actions?: ComponentChildren;
  wide?: boolean;
}

export function Dialog({ title, open, onClose, children, actions, wide }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      class={wide ? 'dialog dialog-wide' : 'dialog'}
      aria-label={title}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        // A click on the backdrop (the dialog element itself, outside its box) closes it.
        if (event.target === ref.current) onClose();
      }}
    >
      {open && (
        <div class="dialog-box">
          <h2 class="dialog-title">{title}</h2>
          <div class="dialog-body">{children}</div>
          {actions && <div class="dialog-actions">{actions}</div>}
        </div>
      )}
    </dialog>
  );
}

/** The footer of a dialog around a form: Cancel, and the button that submits the form `form`. */
export function FormActions({
  form,
  submitLabel,
  onCancel,
}: {
  form: string;
  submitLabel: string;
  onCancel: () => void;
}) {
  return (
    <>
      <button type="button" class="btn" onClick={onCancel}>
        {t('common.cancel')}
      </button>
      <button type="submit" form={form} class="btn btn-primary">
        {submitLabel}
      </button>
    </>
  );
}

/** A form's error, announced to screen readers; nothing when there is none. */
export function FormError({ error }: { error: string | null | undefined }) {
  return error ? (
    <p class="form-error" role="alert">
      {error}
    </p>
  ) : null;
}

/** The error of one field, under it, announced to screen readers; nothing when there is none. */
export function FieldError({ error }: { error: string | undefined }) {
  return error ? (
    <span class="field-error" role="alert">
      {error}
    </span>
  ) : null;
}
