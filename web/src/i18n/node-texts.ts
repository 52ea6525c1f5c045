// The node types' texts from the server (GET /components: categories, labels, descriptions, field
// labels and help) in the UI's language. The server words them in English; in Chinese, the built-in
// types' texts are looked up in zh-node-types.ts and zh-node-fields.ts by that English text. A text
// not found there (a type added later, a plugin's) is shown as the server sent it.
import { lang } from './index.ts';
import { zhNodeFields } from './zh-node-fields.ts';
import { zhNodeTypes } from './zh-node-types.ts';

export function nodeText(text: string): string {
  if (lang.get() !== 'zh' || text === '') return text;
  if (Object.hasOwn(zhNodeTypes, text)) return zhNodeTypes[text] ?? text;
  return Object.hasOwn(zhNodeFields, text) ? (zhNodeFields[text] ?? text) : text;
}
