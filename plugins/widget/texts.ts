import type { WidgetTextKey } from '../../core/kernel/widget-texts.js';

/** The widget's texts, every key set (brand profiles set some; DEFAULT_TEXTS fill the rest). */
export type WidgetTexts = Record<WidgetTextKey, string>;
export type WidgetLocale = 'en' | 'it';

/** The texts a brand profile does not set, per interface language. */
export const DEFAULT_TEXTS: Record<WidgetLocale, WidgetTexts> = {
  en: {
    button: 'Report a problem',
    title: 'Tell us what went wrong',
    message_label: 'What happened?',
    message_placeholder: 'Describe what you were doing and what you expected to see.',
    email_label: 'Your email address',
    technical_consent:
      'Attach technical details (recent console errors, network requests and browser version) to help us find the problem.',
    screenshot_button: 'Add a screenshot',
    screenshot_consent: 'I agree to send this screenshot with my report.',
    submit: 'Send report',
    confirmation: 'Thank you! We received your report and will get back to you by email.',
    follow_link: 'Follow your request',
    error: 'Your report could not be sent. Please try again in a moment.',
  },
  it: {
    button: 'Segnala un problema',
    title: 'Raccontaci cosa non ha funzionato',
    message_label: 'Che cosa è successo?',
    message_placeholder: 'Descrivi che cosa stavi facendo e che cosa ti aspettavi di vedere.',
    email_label: 'Il tuo indirizzo email',
    technical_consent:
      'Allega i dettagli tecnici (errori recenti della console, richieste di rete e versione del browser) per aiutarci a trovare il problema.',
    screenshot_button: 'Aggiungi uno screenshot',
    screenshot_consent: 'Acconsento a inviare questo screenshot con la mia segnalazione.',
    submit: 'Invia segnalazione',
    confirmation: 'Grazie! Abbiamo ricevuto la tua segnalazione e ti risponderemo via email.',
    follow_link: 'Segui la tua richiesta',
    error: 'Non è stato possibile inviare la segnalazione. Riprova tra qualche istante.',
  },
};

/** The engine badge under the form (absent when the brand hides it). */
export const BADGE_TEXT: Record<WidgetLocale, string> = { en: 'Support by Patchwell', it: 'Assistenza di Patchwell' };

/** The body of the ticket a test report opens. */
export const TEST_REPORT: Record<WidgetLocale, { subject: string; body: string }> = {
  en: {
    subject: 'Widget test report',
    body: 'This is a test report sent from the widget settings. It was closed at once and used no diagnosis.',
  },
  it: {
    subject: 'Segnalazione di prova del widget',
    body: 'Questa è una segnalazione di prova inviata dalle impostazioni del widget. È stata chiusa subito e non ha usato alcuna diagnosi.',
  },
};

/** Refusal messages of the public operations, in both languages (details.message_it carries the Italian one). */
export const REFUSALS = {
  unknown_key: { en: 'Unknown or rotated widget key', it: 'Chiave del widget sconosciuta o sostituita' },
  origin_not_allowed: {
    en: 'This site is not among the widget’s allowed origins',
    it: 'Questo sito non è tra le origini consentite del widget',
  },
  host_consent: {
    en: 'The host site has not given consent to collect this data',
    it: 'Il sito ospitante non ha dato il consenso alla raccolta di questi dati',
  },
  screenshot_consent: {
    en: 'A screenshot is sent only with the user’s consent',
    it: 'Uno screenshot viene inviato solo con il consenso dell’utente',
  },
  passive_disabled: {
    en: 'Passive error collection is off for this widget',
    it: 'La raccolta passiva degli errori è disattivata per questo widget',
  },
  invalid_user_hash: {
    en: 'The user hash does not match this email address',
    it: 'L’hash dell’utente non corrisponde a questo indirizzo email',
  },
  screenshot_invalid: {
    en: 'The screenshot must be a PNG, JPEG or WebP image',
    it: 'Lo screenshot deve essere un’immagine PNG, JPEG o WebP',
  },
  screenshot_too_large: { en: 'The screenshot is too large', it: 'Lo screenshot è troppo grande' },
} as const;

export const localeOf = (v: string | null | undefined): WidgetLocale | null => {
  const l = (v ?? '').trim().toLowerCase().slice(0, 2);
  return l === 'it' || l === 'en' ? l : null;
};
