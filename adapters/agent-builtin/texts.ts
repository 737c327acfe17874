import type { CodeHit, TicketCategory } from '../../core/contracts/index.js';

export type Lang = 'en' | 'it';

const ITALIAN =
  /\b(?:il|lo|gli|della|non|che|per|come|sono|quando|grazie|buongiorno|salve|ciao|perché|posso|funziona|errore)\b/giu;
const ENGLISH = /\b(?:the|is|not|when|what|how|can|thanks|hello|please|does|error|works)\b/giu;

/** The ticket's language when known, else a guess from common words (en when unsure). */
export function languageOf(text: string, known?: string): Lang {
  if (known === 'en' || known === 'it') return known;
  const it = text.match(ITALIAN)?.length ?? 0;
  const en = text.match(ENGLISH)?.length ?? 0;
  return it > en ? 'it' : 'en';
}

const CATEGORY_WORDS: Record<Lang, Record<TicketCategory, string>> = {
  en: {
    usage: 'a question about using the product',
    config: 'a question about configuration',
    docs: 'a problem in the documentation',
    bug: 'a defect',
    feature_request: 'a feature request',
    unknown: 'a request we could not classify',
  },
  it: {
    usage: "una domanda sull'uso del prodotto",
    config: 'una domanda sulla configurazione',
    docs: 'un problema nella documentazione',
    bug: 'un difetto',
    feature_request: 'una richiesta di funzionalità',
    unknown: 'una richiesta che non abbiamo saputo classificare',
  },
};

/** One sentence for the public status page (shown only after a person approves it). */
export function publicSummary(lang: Lang, category: TicketCategory): string {
  return lang === 'it'
    ? `Abbiamo esaminato la segnalazione: si tratta di ${CATEGORY_WORDS.it[category]}.`
    : `We looked into the report: it is ${CATEGORY_WORDS.en[category]}.`;
}

const quote = (snippet: string) =>
  snippet
    .split('\n')
    .map((l) => `> ${l}`.trimEnd())
    .join('\n');

/** A reply grounded in a passage of the repository's documentation. */
export function groundedReply(lang: Lang, hit: CodeHit & { snippet: string }): string {
  const where = hit.url ? `${hit.path} (${hit.url})` : hit.path;
  return lang === 'it'
    ? `Buongiorno,\n\ngrazie per averci scritto. La risposta si trova nella nostra documentazione, in ${where}:\n\n${quote(hit.snippet)}\n\nSe non risponde alla sua domanda, risponda pure a questa email e la aiuteremo.\n`
    : `Hello,\n\nthanks for writing. Our documentation covers this, in ${where}:\n\n${quote(hit.snippet)}\n\nIf this does not answer your question, just reply to this email and we will help.\n`;
}

/** Asks the customer for what a diagnosis needs. */
export function needsInfo(lang: Lang): string {
  return lang === 'it'
    ? 'Buongiorno,\n\ngrazie per averci scritto. Per aiutarla ci servono alcuni dettagli: cosa stava cercando di fare, cosa è successo invece e, se possibile, i passaggi per riprodurre il problema o uno screenshot.\n'
    : 'Hello,\n\nthanks for writing. To help you we need a few more details: what you were trying to do, what happened instead and, if you can, the steps to reproduce it or a screenshot.\n';
}

/** Internal notes on the likely cause (for the team, English and Italian alike: Markdown). */
export function rootCause(category: TicketCategory, confidence: number, terms: string[], hits: CodeHit[]): string {
  const words =
    terms
      .slice(0, 8)
      .map((t) => `\`${t}\``)
      .join(', ') || '(none)';
  const lines = [
    category === 'unknown'
      ? `No category fits the request (words: ${words}); the team should read it.`
      : `Category **${category}** (confidence ${confidence.toFixed(2)}), from the words: ${words}.`,
  ];
  if (hits.length === 0) lines.push('', 'No place in the repository matches the report.');
  else {
    lines.push('', category === 'bug' ? 'Most likely places of the defect:' : 'Related places in the repository:');
    for (const h of hits)
      lines.push(
        `- \`${h.path}\`${h.line_start ? ` lines ${h.line_start}–${h.line_end ?? h.line_start}` : ''}${h.symbol ? ` (\`${h.symbol}\`)` : ''}`,
      );
  }
  return lines.join('\n');
}
