// The configuration fields many node types share, each with its form label and help in `.meta`
// (engine/components.ts turns them into the editor's form).
import { z } from 'zod';

/** A text that may stay empty (default ''). */
export function optionalText(label: string, description: string) {
  return z.string().default('').meta({ label, description });
}

/** A text that must not be empty (trimmed). */
export function requiredText(label: string, description: string) {
  return z.string().trim().min(1).meta({ label, description });
}

/** A text that must not be empty, kept as written: a script or template, where spaces count. */
export function nonEmptyText(label: string, description: string) {
  return z.string().min(1).meta({ label, description });
}

/** A switch, off by default. */
export function flag(label: string, description: string) {
  return z.boolean().default(false).meta({ label, description });
}

/** A whole number, `min` or more. */
export function wholeNumber(min: number, defaultValue: number, label: string, description: string) {
  return z.number().int().min(min).default(defaultValue).meta({ label, description });
}

/** A whole number from `min` to `max`: a mode, a count with a cap. */
export function wholeNumberIn(
  min: number,
  max: number,
  defaultValue: number,
  label: string,
  description: string,
) {
  return z.number().int().min(min).max(max).default(defaultValue).meta({ label, description });
}

/** A whole number of seconds, 0 or more. */
export function seconds(defaultSeconds: number, label: string, description: string) {
  return wholeNumber(0, defaultSeconds, label, description);
}

/** The items of a comma-separated list, trimmed; empty ones are left out. */
export function commaList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
