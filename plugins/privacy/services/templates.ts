/** Emails of the privacy plugin (en, it). */
export const PRIVACY_TEMPLATES = [
  {
    name: 'privacy.export_ready',
    subject: { en: 'Your data export is ready', it: 'L’esportazione dei tuoi dati è pronta' },
    text: {
      en:
        'The export of {{org_name}} is ready.\n\nDownload it here (the link works until ' +
        '{{expires_at}}):\n{{url}}\n\nIf you did not ask for it, tell an owner of your organization.',
      it:
        'L’esportazione di {{org_name}} è pronta.\n\nScaricala qui (il link vale fino al ' +
        '{{expires_at}}):\n{{url}}\n\nSe non l’hai richiesta, avvisa un proprietario della tua ' +
        'organizzazione.',
    },
  },
];
