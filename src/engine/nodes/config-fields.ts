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

/** A whole number of seconds, 0 or more. */
export function seconds(defaultSeconds: number, label: string, description: string) {
  return z.number().int().min(0).default(defaultSeconds).meta({ label, description });
}

/** The items of a comma-separated list, trimmed; empty ones are left out. */
export function commaList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
