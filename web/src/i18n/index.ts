// The UI's language: English or Chinese (简体中文). The browser's preferred language picks the
// default (any zh-* is Chinese); the switch in the top bar overrides it and is remembered in
// localStorage. Components read texts with t() and re-render through useLang() (the shell calls it,
// so a switch re-renders every page).
import { createStore, useStore } from '../store.ts';
import { en as enBase, type MessageKey as BaseKey } from './en.ts';
import { zh } from './zh.ts';
import { enManage, type ManageKey } from './en-manage.ts';
import { zhManage } from './zh-manage.ts';
import { enOps, type OpsKey } from './en-ops.ts';
import { zhOps } from './zh-ops.ts';
import { enRules, type RulesKey } from './en-rules.ts';
import { zhRules } from './zh-rules.ts';

/**
 * Every key: the shell's (en.ts), the management pages' (en-manage.ts), the operations pages'
 * (en-ops.ts) and the Rule chains page's (en-rules.ts).
 */
export type MessageKey = BaseKey | ManageKey | OpsKey | RulesKey;
export type Lang = 'en' | 'zh';
export const LANGS: Array<{ id: Lang; label: string }> = [
  { id: 'en', label: 'English' },
  { id: 'zh', label: '简体中文' },
];

const STORAGE_KEY = 'agent-service.lang';
const en: Record<MessageKey, string> = { ...enBase, ...enManage, ...enOps, ...enRules };
const DICTIONARIES: Record<Lang, Record<MessageKey, string>> = {
  en,
  zh: { ...zh, ...zhManage, ...zhOps, ...zhRules },
};

/** The browser's choice: its first preferred language. */
export function browserLang(
  languages: readonly string[] = navigator.languages ?? [navigator.language],
): Lang {
  const first = (languages[0] ?? 'en').toLowerCase();
  return first === 'zh' || first.startsWith('zh-') ? 'zh' : 'en';
}

function storedLang(): Lang | undefined {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    return stored === 'en' || stored === 'zh' ? stored : undefined;
  } catch {
    return undefined;
  }
}

export const lang = createStore<Lang>(storedLang() ?? browserLang());

function applyToDocument(value: Lang): void {
  document.documentElement.lang = value === 'zh' ? 'zh-CN' : 'en';
}
applyToDocument(lang.get());

export function setLang(value: Lang): void {
  try {
    localStorage.setItem(STORAGE_KEY, value);
  } catch {
    // storage refused (private mode): the choice lasts for this page
  }
  applyToDocument(value);
  lang.set(value);
}

/** The text of `key` in the current language, with {name} placeholders filled. */
export function t(key: MessageKey, params: Record<string, string | number> = {}): string {
  const text = DICTIONARIES[lang.get()][key] ?? en[key];
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    params[name] === undefined ? whole : String(params[name]),
  );
}

/**
 * The text of `key` cut at its {name} placeholders, each filled with `parts[name]` (an element, say):
 * for a link or a <strong> inside a sentence whose word order differs between the languages.
 */
export function tParts<T>(key: MessageKey, parts: Record<string, T>): Array<string | T> {
  const text = DICTIONARIES[lang.get()][key] ?? en[key];
  return text
    .split(/(\{\w+\})/)
    .filter((piece) => piece !== '')
    .map((piece) => {
      const name = /^\{(\w+)\}$/.exec(piece)?.[1];
      return name !== undefined && name in parts ? (parts[name] as T) : piece;
    });
}

/** The current language; the component re-renders when it changes. */
export function useLang(): Lang {
  return useStore(lang);
}
