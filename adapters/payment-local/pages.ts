/** HTML of the simulated provider's hosted pages, in English and Italian (`?lang=it`). */
import { escapeHtml as esc } from '../../core/http/html.js';

export type Lang = 'en' | 'it';
export const langOf = (q: Record<string, string>): Lang => (q.lang === 'it' ? 'it' : 'en');

const T = {
  en: {
    banner:
      'Simulated payment provider: no money moves. Test cards: 4242 4242 4242 4242 pays; 4000 0000 0000 ' +
      '0002 is declined; 4000 0000 0000 0341 is saved but its charges fail.',
    checkoutTitle: 'Checkout',
    plan: 'Plan',
    pack: 'Top-up',
    fixes: 'fixes',
    perMonth: 'per month',
    trial: (d: number) => `${d}-day free trial, then billed monthly. Your card is kept on file.`,
    card: 'Card number',
    pay: 'Pay',
    startTrial: 'Start trial',
    cancel: 'Cancel and go back',
    declined: 'The card was declined. Try another card.',
    gone: 'This page has expired or was already used.',
    portalTitle: 'Billing portal',
    status: 'Status',
    period: 'Current period ends',
    cancelsAt: 'Cancels at the end of the period',
    cardOnFile: 'Card on file',
    none: 'none',
    invoices: 'Invoices',
    cancelSub: 'Cancel at period end',
    resume: 'Keep my subscription',
    updateCard: 'Update card',
    back: 'Back',
    updated: 'Saved.',
    connectTitle: 'Payout account onboarding',
    resaleNote: 'Billed monthly to this card until your provider stops it; paid to your provider.',
    business: 'Business name',
    submit: 'Submit details',
  },
  it: {
    banner:
      'Fornitore di pagamenti simulato: nessun addebito reale. Carte di prova: 4242 4242 4242 4242 paga; ' +
      '4000 0000 0000 0002 viene rifiutata; 4000 0000 0000 0341 viene salvata ma i suoi addebiti ' +
      'falliscono.',
    checkoutTitle: 'Pagamento',
    plan: 'Piano',
    pack: 'Ricarica',
    fixes: 'fix',
    perMonth: 'al mese',
    trial: (d: number) => `Prova gratuita di ${d} giorni, poi addebito mensile. La carta viene salvata.`,
    card: 'Numero di carta',
    pay: 'Paga',
    startTrial: 'Inizia la prova',
    cancel: 'Annulla e torna indietro',
    declined: "La carta è stata rifiutata. Prova con un'altra carta.",
    gone: 'Questa pagina è scaduta o è già stata usata.',
    portalTitle: 'Portale di fatturazione',
    status: 'Stato',
    period: 'Il periodo corrente termina',
    cancelsAt: 'Si annulla alla fine del periodo',
    cardOnFile: 'Carta salvata',
    none: 'nessuna',
    invoices: 'Fatture',
    cancelSub: 'Annulla a fine periodo',
    resume: "Mantieni l'abbonamento",
    updateCard: 'Aggiorna la carta',
    back: 'Indietro',
    updated: 'Salvato.',
    connectTitle: 'Configurazione del conto di incasso',
    resaleNote:
      "Addebito mensile su questa carta finché il tuo fornitore non lo interrompe; l'importo va al tuo fornitore.",
    business: 'Ragione sociale',
    submit: 'Invia i dati',
  },
} as const;

export function t(lang: Lang) {
  return T[lang];
}

export function usd(v: number): string {
  return `$${v.toFixed(2)}`;
}

export function page(lang: Lang, title: string, body: string): string {
  return [
    '<!doctype html>',
    `<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${esc(title)}</title>`,
    '<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#1f2328}',
    '.banner{background:#fff8c5;border:1px solid #d4a72c;padding:.5rem .75rem;font-size:.85rem}',
    '.error{color:#cf222e}.note{color:#1a7f37}label{display:block;margin:.75rem 0 .25rem}input{font-size:1rem;padding:.4rem;width:100%}',
    'button{margin-top:1rem;font-size:1rem;padding:.5rem 1rem}table{border-collapse:collapse;width:100%}td{padding:.25rem 0}</style>',
    `</head><body><p class="banner">${esc(t(lang).banner)}</p><h1>${esc(title)}</h1>`,
    body,
    '</body></html>',
  ].join('\n');
}

export function gonePage(lang: Lang): { status: number; html: string } {
  return { status: 410, html: page(lang, t(lang).checkoutTitle, `<p class="error">${esc(t(lang).gone)}</p>`) };
}
