import type { Ticket } from '../models/index.js';
import { maskEmailsIn } from './mask.js';
import { publicStateOf, type PublicState } from './state-machine.js';
import { escapeHtml as esc } from '../../../core/http/html.js';

type Lang = 'en' | 'it';

const TEXTS: Record<
  Lang,
  {
    title: string;
    status: string;
    summary: string;
    noSummary: string;
    release: (v: string, d: string | null) => string;
    updated: string;
    opened: string;
    notFoundTitle: string;
    notFound: string;
    states: Record<PublicState, { label: string; help: string }>;
    unsubscribe: { title: string; ask: string; button: string; done: string };
  }
> = {
  en: {
    title: 'Request status',
    status: 'Status',
    summary: 'Summary',
    noSummary: 'We will add a summary here as soon as we have one.',
    release: (v, d) => `The fix was released in version ${v}${d ? ` on ${d}` : ''}.`,
    updated: 'Last update',
    opened: 'Opened',
    notFoundTitle: 'Page not found',
    notFound: 'This status link does not exist or is no longer valid.',
    unsubscribe: {
      title: 'Stop updates',
      ask: 'Stop the emails about this request (release notices and other automatic updates)?',
      button: 'Stop the emails',
      done: 'Done: you will not receive more automatic emails about this request.',
    },
    states: {
      in_analysis: { label: 'In analysis', help: 'We received your request and are looking into it.' },
      needs_reply: {
        label: 'Waiting for your reply',
        help: 'We asked you for some details: reply to our email to continue.',
      },
      answered: { label: 'Answered', help: 'We answered your request by email.' },
      fix_in_progress: { label: 'Fix in progress', help: 'We found the cause and a fix is being prepared.' },
      releasing: { label: 'Releasing', help: 'The fix is being released.' },
      resolved: { label: 'Resolved', help: 'Your request has been resolved.' },
      team_review: { label: 'With our team', help: 'A person on our team is reviewing your request.' },
    },
  },
  it: {
    title: 'Stato della richiesta',
    status: 'Stato',
    summary: 'Riepilogo',
    noSummary: 'Aggiungeremo qui un riepilogo appena possibile.',
    release: (v, d) => `La correzione è stata rilasciata nella versione ${v}${d ? ` il ${d}` : ''}.`,
    updated: 'Ultimo aggiornamento',
    opened: 'Aperta il',
    notFoundTitle: 'Pagina non trovata',
    notFound: 'Questo link di stato non esiste o non è più valido.',
    unsubscribe: {
      title: 'Interrompi gli aggiornamenti',
      ask: 'Vuoi interrompere le email su questa richiesta (avvisi di rilascio e altri aggiornamenti automatici)?',
      button: 'Interrompi le email',
      done: 'Fatto: non riceverai altre email automatiche su questa richiesta.',
    },
    states: {
      in_analysis: { label: 'In analisi', help: 'Abbiamo ricevuto la tua richiesta e la stiamo analizzando.' },
      needs_reply: {
        label: 'In attesa di una tua risposta',
        help: 'Ti abbiamo chiesto alcuni dettagli: rispondi alla nostra email per continuare.',
      },
      answered: { label: 'Risposta inviata', help: 'Abbiamo risposto alla tua richiesta via email.' },
      fix_in_progress: {
        label: 'Correzione in corso',
        help: 'Abbiamo trovato la causa e stiamo preparando una correzione.',
      },
      releasing: { label: 'In rilascio', help: 'La correzione è in fase di rilascio.' },
      resolved: { label: 'Risolta', help: 'La tua richiesta è stata risolta.' },
      team_review: {
        label: 'In mano al nostro team',
        help: 'Una persona del nostro team sta esaminando la tua richiesta.',
      },
    },
  },
};

function formatDate(d: Date | null, lang: Lang): string | null {
  if (!d) return null;
  return new Intl.DateTimeFormat(lang === 'it' ? 'it-IT' : 'en-GB', { dateStyle: 'long', timeZone: 'UTC' }).format(
    new Date(d),
  );
}

/** Security headers of the public pages: nothing loads from elsewhere, nothing frames them, nothing indexes them. */
export const STATUS_PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex, nofollow',
};

/**
 * The brand a status page shows (filled by the brand plugin's `statusPageBranding`): header and
 * footer HTML (already escaped), the product name to show, and image origins the CSP must allow.
 */
export interface StatusPageBrand {
  productName?: string;
  headerHtml: string;
  footerHtml: string;
  imgSources?: string[];
}

function page(lang: Lang, title: string, body: string, brand?: StatusPageBrand | null): string {
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${esc(title)}</title>
<style>
  body { margin: 0; background: #f6f7f9; color: #1f2328; font: 16px/1.5 -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; }
  main { max-width: 40rem; margin: 3rem auto; padding: 2rem; background: #fff; border-radius: 12px; box-shadow: 0 1px 3px rgba(0,0,0,.08); }
  h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
  .product { color: #57606a; margin: 0 0 1.5rem; }
  .state { display: inline-block; padding: .25rem .75rem; border-radius: 999px; background: #ddf4ff; color: #0969da; font-weight: 600; }
  .state[data-state="resolved"] { background: #dafbe1; color: #1a7f37; }
  .state[data-state="needs_reply"] { background: #fff8c5; color: #9a6700; }
  section { margin-top: 1.5rem; }
  h2 { font-size: 1rem; margin: 0 0 .5rem; }
  .meta { color: #57606a; font-size: .875rem; margin-top: 2rem; }
</style>
</head>
<body>
${brand?.headerHtml ?? ''}<main>
${body}
</main>
${brand?.footerHtml ?? ''}</body>
</html>
`;
}

/** A ticket closed as a duplicate of another, not released itself yet: its page follows the original. */
export function isFollowingDuplicate(
  ticket: Pick<Ticket, 'state' | 'close_reason' | 'duplicate_of_ticket_id' | 'resolved_version'>,
): boolean {
  return (
    ticket.state === 'closed' &&
    ticket.close_reason === 'duplicate' &&
    !!ticket.duplicate_of_ticket_id &&
    !ticket.resolved_version
  );
}

/**
 * The public state a customer sees: the ticket's own, except that a duplicate shows its
 * original's until the original's fix is released (then the release marks the duplicate resolved
 * with the version). Closing a report as a duplicate does not resolve the customer's problem.
 */
export function publicStateFollowing(ticket: Ticket, original?: Pick<Ticket, 'state'> | null): PublicState {
  return original && isFollowingDuplicate(ticket) ? publicStateOf(original.state) : publicStateOf(ticket.state);
}

/**
 * The public status page of a ticket, in its language: public_state, the approved public
 * summary and the release when there is one. Never the subject, an address or a note: the
 * summary is the only free text, and addresses inside it are masked.
 */
export function renderStatusPage(
  ticket: Ticket,
  product: string,
  brand?: StatusPageBrand | null,
  original?: Ticket | null,
): string {
  const lang: Lang = ticket.language === 'it' ? 'it' : 'en';
  const t = TEXTS[lang];
  const state = publicStateFollowing(ticket, original);
  const approved = (x: Ticket | null | undefined) =>
    x?.public_summary && x.public_summary_approved_at ? x.public_summary : null;
  // A duplicate without a summary of its own shows its original's, text already public on the original's page.
  const own =
    approved(ticket) ?? (original && original.id === ticket.duplicate_of_ticket_id ? approved(original) : null);
  const summary = own ? maskEmailsIn(own) : null;
  const release = ticket.resolved_version
    ? t.release(ticket.resolved_version, formatDate(ticket.released_at, lang))
    : null;
  const body = [
    `<h1>${esc(t.title)}</h1>`,
    `<p class="product">${esc(product)}</p>`,
    `<section aria-labelledby="status-h"><h2 id="status-h">${esc(t.status)}</h2>`,
    `<p><span class="state" data-state="${state}" data-testid="public-state">${esc(t.states[state].label)}</span></p>`,
    `<p data-testid="state-help">${esc(t.states[state].help)}</p></section>`,
    `<section aria-labelledby="summary-h"><h2 id="summary-h">${esc(t.summary)}</h2>`,
    `<p data-testid="summary">${esc(summary ?? t.noSummary).replace(/\n/g, '<br>')}</p></section>`,
    release ? `<section><p data-testid="release">${esc(release)}</p></section>` : '',
    `<p class="meta">${esc(t.opened)} ${esc(formatDate(ticket.created_at, lang))} · ${esc(t.updated)} ${esc(formatDate(ticket.updated_at, lang))}</p>`,
  ].join('\n');
  return page(lang, `${t.title} · ${product}`, body, brand);
}

/** The 404 page of unknown, revoked and rotated links, in the visitor's language when it is Italian. */
export function renderNotFound(acceptLanguage: string | undefined): string {
  const lang: Lang = /^\s*it\b/i.test(acceptLanguage ?? '') ? 'it' : 'en';
  const t = TEXTS[lang];
  return page(lang, t.notFoundTitle, `<h1>${esc(t.notFoundTitle)}</h1>\n<p>${esc(t.notFound)}</p>`);
}

/** Headers of the unsubscribe page: those of the status page, with its own form allowed. */
export const UNSUBSCRIBE_PAGE_HEADERS: Record<string, string> = {
  ...STATUS_PAGE_HEADERS,
  'Content-Security-Policy': STATUS_PAGE_HEADERS['Content-Security-Policy'].replace(
    "form-action 'none'",
    "form-action 'self'",
  ),
};

/**
 * The page of a notice's unsubscribe link: `ask` shows a button (a GET changes nothing, since mail
 * scanners open links), `done` confirms. In the ticket's language.
 */
export function renderUnsubscribe(language: string, product: string, step: 'ask' | 'done', action: string): string {
  const lang: Lang = language === 'it' ? 'it' : 'en';
  const t = TEXTS[lang].unsubscribe;
  const body =
    step === 'ask'
      ? `<h1>${esc(t.title)}</h1>\n<p class="product">${esc(product)}</p>\n<p>${esc(t.ask)}</p>\n<form method="post" action="${esc(action)}"><button type="submit">${esc(t.button)}</button></form>`
      : `<h1>${esc(t.title)}</h1>\n<p class="product">${esc(product)}</p>\n<p data-testid="unsubscribed">${esc(t.done)}</p>`;
  return page(lang, `${t.title} · ${product}`, body);
}
