// Building and copying RuleGo messages. Metadata values are strings, so a spread is a deep copy.
import { newId } from '../core/ids.ts';
import type { RuleMessage } from './types.ts';

/** A new message; objects become JSON data, strings stay TEXT unless `init.dataType` says otherwise. */
export function newMessage(data: string | object, init: Partial<RuleMessage> = {}): RuleMessage {
  const isText = typeof data === 'string';
  return {
    id: init.id ?? newId(),
    ts: init.ts ?? Date.now(),
    type: init.type ?? '',
    dataType: init.dataType ?? (isText ? 'TEXT' : 'JSON'),
    data: isText ? data : JSON.stringify(data),
    metadata: { ...init.metadata },
  };
}

/** An independent copy: each connection of a fan-out gets its own. */
export function copyMessage(message: RuleMessage): RuleMessage {
  return { ...message, metadata: { ...message.metadata } };
}

/** A copy carrying `metadata.errorMsg`, the RuleGo convention for the Failure relation. */
export function withErrorMessage(message: RuleMessage, errorText: string): RuleMessage {
  return { ...message, metadata: { ...message.metadata, errorMsg: errorText } };
}

/** The data as a JS value: parsed JSON for JSON messages (text when it does not parse), else the text. */
export function readData(message: RuleMessage): unknown {
  if (message.dataType !== 'JSON') return message.data;
  try {
    return JSON.parse(message.data) as unknown;
  } catch {
    return message.data;
  }
}

/** Metadata as RuleGo keeps it: every value a string. */
export function toMetadata(value: unknown): Record<string, string> {
  const metadata: Record<string, string> = {};
  if (typeof value !== 'object' || value === null) return metadata;
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined || item === null) continue;
    metadata[key] =
      typeof item === 'string' ? item : typeof item === 'object' ? JSON.stringify(item) : String(item);
  }
  return metadata;
}
