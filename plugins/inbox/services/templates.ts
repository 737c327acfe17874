/**
 * Mail the inbox sends: the forwarding test, to the customer's own support address. It carries
 * the code in the subject and the body (and in the X-Patchwell-Forwarding-Test header), so it is
 * recognised when the customer's forwarding brings it back to the inbound address. Neutral
 * wording: an agency's client may read it.
 */
export const FORWARDING_TEST_TEMPLATE = 'inbox.forwarding_test';

export const INBOX_MAIL_TEMPLATES = [
  {
    name: FORWARDING_TEST_TEMPLATE,
    subject: {
      en: 'Forwarding test {{code}}',
      it: 'Test di inoltro {{code}}',
    },
    text: {
      en: [
        'This is a test of the forwarding of {{address}} to the support inbox of {{workspace}}.',
        '',
        'Test code: {{code}}',
        '',
        'When this message arrives at {{inbound_address}} through your forwarding, the forwarding is marked ' +
          'as verified. There is nothing else to do, and nobody needs to answer this message.',
      ].join('\n'),
      it: [
        "Questo è un test dell'inoltro di {{address}} alla casella di assistenza di {{workspace}}.",
        '',
        'Codice del test: {{code}}',
        '',
        "Quando questo messaggio arriva a {{inbound_address}} attraverso il tuo inoltro, l'inoltro risulta " +
          'verificato. Non serve fare altro e non occorre rispondere a questo messaggio.',
      ].join('\n'),
    },
  },
];
