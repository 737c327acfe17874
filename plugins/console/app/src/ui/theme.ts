import { useEffect, useState } from 'react';

export type ThemeChoice = 'system' | 'light' | 'dark';
const KEY = 'pw.theme';

export function storedTheme(): ThemeChoice {
  const v = localStorage.getItem(KEY);
  return v === 'light' || v === 'dark' ? v : 'system';
}

/** Applies a choice: `system` follows prefers-color-scheme (the CSS does it), the others force one. */
export function applyTheme(choice: ThemeChoice): void {
  if (choice === 'system') document.documentElement.removeAttribute('data-theme');
  else document.documentElement.setAttribute('data-theme', choice);
}

export function useTheme(): [ThemeChoice, (c: ThemeChoice) => void] {
  const [choice, setChoice] = useState<ThemeChoice>(storedTheme);
  useEffect(() => {
    applyTheme(choice);
    if (choice === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, choice);
  }, [choice]);
  return [choice, setChoice];
}

/** The workspace's brand color on the page (`--brand`); null restores Patchwell's. */
export function applyBrandColor(color: string | null): void {
  const root = document.documentElement;
  if (!color || !/^#[0-9a-fA-F]{6}$/.test(color)) {
    root.removeAttribute('data-brand');
    return;
  }
  root.style.setProperty('--ws-brand', color);
  // The API darkens primary_color_effective until white text on it meets WCAG AA.
  root.style.setProperty('--ws-brand-contrast', '#ffffff');
  root.setAttribute('data-brand', '');
}
