// Light and dark: the system's preference (prefers-color-scheme) unless the user chose one.
import { createStore } from '../store.ts';

export type Theme = 'light' | 'dark';
const THEME_KEY = 'agent-service.theme';

function stored(): Theme | null {
  const value = localStorage.getItem(THEME_KEY);
  return value === 'light' || value === 'dark' ? value : null;
}

const systemDark = window.matchMedia('(prefers-color-scheme: dark)');

function effective(): Theme {
  return stored() ?? (systemDark.matches ? 'dark' : 'light');
}

export const theme = createStore<Theme>(effective());

function apply(): void {
  const choice = stored();
  if (choice) document.documentElement.dataset['theme'] = choice;
  else delete document.documentElement.dataset['theme'];
  theme.set(effective());
}

export function initTheme(): void {
  apply();
  systemDark.addEventListener('change', apply);
}

export function toggleTheme(): void {
  localStorage.setItem(THEME_KEY, effective() === 'dark' ? 'light' : 'dark');
  apply();
}
