import { readFileSync } from 'node:fs';

export type PromptName = 'diagnose' | 'fix' | 'retry';
export const PROMPT_NAMES: readonly PromptName[] = ['diagnose', 'fix', 'retry'];

/** A prompt file of prompts/: its version (first line `<!-- version: n -->`) and text. */
export interface Prompt {
  name: PromptName;
  version: number;
  text: string;
}

const VERSION = /^<!--\s*version:\s*(\d+)\s*-->\s*\n/;
const cache = new Map<PromptName, Prompt>();

/** Reads prompts/<name>.md once; a file without its version line is refused (a prompt change is a versioned change). */
export function loadPrompt(name: PromptName): Prompt {
  const hit = cache.get(name);
  if (hit) return hit;
  const raw = readFileSync(new URL(`./prompts/${name}.md`, import.meta.url), 'utf8');
  const m = VERSION.exec(raw);
  if (!m) throw new Error(`prompts/${name}.md has no version line (<!-- version: n -->)`);
  const prompt = { name, version: Number(m[1]), text: raw.slice(m[0].length).trim() };
  cache.set(name, prompt);
  return prompt;
}

/** The prompt with its {{placeholders}} filled; an unknown placeholder is an error, not an empty string. */
export function renderPrompt(name: PromptName, vars: Record<string, string>): string {
  return loadPrompt(name).text.replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    const v = vars[key];
    if (v === undefined) throw new Error(`prompts/${name}.md: no value for {{${key}}}`);
    return v;
  });
}

/** `diagnose@1 fix@1 retry@1`: which prompts a job ran with (a job event). */
export const promptVersions = (): string => PROMPT_NAMES.map((n) => `${n}@${loadPrompt(n).version}`).join(' ');
