/** Mail templates of the tickets plugin, registered with the mail plugin at boot. */
export const TICKET_MAIL_TEMPLATES = [
  {
    // A reply a person sent from a draft: the subject and body are the team's own words.
    name: 'tickets.reply',
    subject: { en: '{{subject}}', it: '{{subject}}' },
    text: { en: '{{body}}', it: '{{body}}' },
  },
  {
    // To the team (leads, assignee): never carries a customer-facing brand.
    name: 'tickets.escalated',
    audience: 'team' as const,
    subject: {
      en: 'Ticket escalated to the team: {{subject}}',
      it: 'Ticket inoltrato al team: {{subject}}',
    },
    text: {
      en: '{{actor}} escalated a ticket of {{workspace}} to the team.\n\nSubject: {{subject}}\nReason: {{reason}}\n\nOpen the ticket: {{url}}\n',
      it: '{{actor}} ha inoltrato al team un ticket di {{workspace}}.\n\nOggetto: {{subject}}\nMotivo: {{reason}}\n\nApri il ticket: {{url}}\n',
    },
  },
];
