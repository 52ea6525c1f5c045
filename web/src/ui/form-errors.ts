// A form's errors as the server gave them, placed where the user looks: a validation error that
// names a field (`body.schedule: ...`) goes under that field, in words; anything else above the form.
import { useState } from 'preact/hooks';
import { ApiError } from '../api.ts';

export interface FormErrors {
  /** The problem of a field, if the last answer named it. */
  of(field: string): string | undefined;
  /** An error that names none of the form's fields. */
  general: string | null;
  /** Takes a failed request's error; `fields` are the names the form shows. */
  take(error: unknown, fields: readonly string[]): void;
  clear(): void;
}

export function useFormErrors(): FormErrors {
  const [state, setState] = useState<{ field?: string; text: string } | null>(null);
  return {
    of: (field) => (state?.field === field ? state.text : undefined),
    general: state && state.field === undefined ? state.text : null,
    take(error, fields) {
      const named = error instanceof ApiError ? error.field : undefined;
      if (named && fields.includes(named.name)) setState({ field: named.name, text: named.problem });
      else setState({ text: error instanceof Error ? error.message : String(error) });
    },
    clear: () => setState(null),
  };
}
