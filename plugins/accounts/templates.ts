import type { MailTemplate } from '../../core/contracts/mail.js';

/**
 * Emails of the accounts plugin, in English and Italian. `{{key}}` placeholders are filled from
 * the message data (HTML-escaped in the html part). Every template gets `base_url` too.
 */

const html = (body: string, link?: string, cta?: string): string =>
  `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#111">${body}` +
  (link
    ? `<p><a href="${link}" style="display:inline-block;padding:10px 16px;background:#111;color:#fff;text-decoration:none;border-radius:6px">${cta}</a></p><p style="font-size:12px;color:#555">${link}</p>`
    : '') +
  '</body></html>';

export const ACCOUNT_TEMPLATES: MailTemplate[] = [
  {
    name: 'accounts.verify_email',
    subject: { en: 'Confirm your email address', it: 'Conferma il tuo indirizzo email' },
    text: {
      en:
        'Hello {{name}},\n\nconfirm your email address for Patchwell by opening this link (valid for 48 ' +
        'hours):\n\n{{link}}\n\nIf you did not sign up, ignore this email.\n',
      it:
        'Ciao {{name}},\n\nconferma il tuo indirizzo email per Patchwell aprendo questo link (valido 48 ' +
        'ore):\n\n{{link}}\n\nSe non ti sei registrato, ignora questa email.\n',
    },
    html: {
      en: html(
        '<p>Hello {{name}},</p><p>confirm your email address for Patchwell (the link is valid for 48 hours). If you did not sign up, ignore this email.</p>',
        '{{link}}',
        'Confirm email',
      ),
      it: html(
        '<p>Ciao {{name}},</p><p>conferma il tuo indirizzo email per Patchwell (il link è valido 48 ore). Se non ti sei registrato, ignora questa email.</p>',
        '{{link}}',
        'Conferma email',
      ),
    },
  },
  {
    name: 'accounts.magic_link',
    subject: { en: 'Your sign-in link', it: 'Il tuo link di accesso' },
    text: {
      en:
        'Hello {{name}},\n\nopen this link to sign in to Patchwell. It works once and expires in 15 ' +
        'minutes:\n\n{{link}}\n\nIf you did not ask for it, ignore this email.\n',
      it:
        'Ciao {{name}},\n\napri questo link per accedere a Patchwell. Funziona una sola volta e scade tra 15 ' +
        "minuti:\n\n{{link}}\n\nSe non l'hai richiesto, ignora questa email.\n",
    },
    html: {
      en: html(
        '<p>Hello {{name}},</p><p>use this link to sign in to Patchwell. It works once and expires in 15 ' +
          'minutes. If you did not ask for it, ignore this email.</p>',
        '{{link}}',
        'Sign in',
      ),
      it: html(
        '<p>Ciao {{name}},</p><p>usa questo link per accedere a Patchwell. Funziona una sola volta e scade ' +
          "tra 15 minuti. Se non l'hai richiesto, ignora questa email.</p>",
        '{{link}}',
        'Accedi',
      ),
    },
  },
  {
    name: 'accounts.password_reset',
    subject: { en: 'Reset your password', it: 'Reimposta la password' },
    text: {
      en:
        'Hello {{name}},\n\nopen this link to choose a new Patchwell password. It works once and expires in ' +
        '30 minutes:\n\n{{link}}\n\nChoosing a new password signs you out everywhere else. If you did not ' +
        'ask for it, ignore this email.\n',
      it:
        'Ciao {{name}},\n\napri questo link per scegliere una nuova password di Patchwell. Funziona una sola ' +
        'volta e scade tra 30 minuti:\n\n{{link}}\n\nLa nuova password chiude tutte le altre sessioni. Se ' +
        "non l'hai richiesto, ignora questa email.\n",
    },
    html: {
      en: html(
        '<p>Hello {{name}},</p><p>choose a new Patchwell password with this link. It works once and expires ' +
          'in 30 minutes; a new password signs you out everywhere else. If you did not ask for it, ignore this ' +
          'email.</p>',
        '{{link}}',
        'Choose a new password',
      ),
      it: html(
        '<p>Ciao {{name}},</p><p>scegli una nuova password di Patchwell con questo link. Funziona una sola ' +
          "volta e scade tra 30 minuti; la nuova password chiude tutte le altre sessioni. Se non l'hai " +
          'richiesto, ignora questa email.</p>',
        '{{link}}',
        'Scegli una nuova password',
      ),
    },
  },
  {
    name: 'accounts.invitation',
    subject: {
      en: '{{inviter_name}} invited you to {{org_name}} on Patchwell',
      it: '{{inviter_name}} ti ha invitato in {{org_name}} su Patchwell',
    },
    text: {
      en:
        'Hello,\n\n{{inviter_name}} invited you to join {{org_name}} on Patchwell as {{role}}.\nAccept the ' +
        'invitation with this link (valid for 7 days, until {{expires_at}}):\n\n{{link}}\n',
      it:
        'Ciao,\n\n{{inviter_name}} ti ha invitato a unirti a {{org_name}} su Patchwell con il ruolo ' +
        "{{role}}.\nAccetta l'invito con questo link (valido 7 giorni, fino al {{expires_at}}):\n\n{{link}}\n",
    },
    html: {
      en: html(
        '<p>Hello,</p><p><strong>{{inviter_name}}</strong> invited you to join <strong>{{org_name}}</strong> ' +
          'on Patchwell as {{role}}. The link is valid for 7 days.</p>',
        '{{link}}',
        'Accept the invitation',
      ),
      it: html(
        '<p>Ciao,</p><p><strong>{{inviter_name}}</strong> ti ha invitato a unirti a ' +
          '<strong>{{org_name}}</strong> su Patchwell con il ruolo {{role}}. Il link è valido 7 giorni.</p>',
        '{{link}}',
        "Accetta l'invito",
      ),
    },
  },
  {
    name: 'accounts.email_changed',
    subject: { en: 'Your Patchwell email address was changed', it: "L'indirizzo email di Patchwell è cambiato" },
    text: {
      en:
        'Hello {{name}},\n\nthe email address of your Patchwell account was changed to {{new_email}}. If you ' +
        'did not do this, reset your password and contact your administrator at once.\n',
      it:
        "Ciao {{name}},\n\nl'indirizzo email del tuo account Patchwell è stato cambiato in {{new_email}}. Se " +
        'non sei stato tu, reimposta la password e contatta subito il tuo amministratore.\n',
    },
    html: {
      en: html(
        '<p>Hello {{name}},</p><p>the email address of your Patchwell account was changed to ' +
          '<strong>{{new_email}}</strong>. If you did not do this, reset your password and contact your ' +
          'administrator at once.</p>',
      ),
      it: html(
        "<p>Ciao {{name}},</p><p>l'indirizzo email del tuo account Patchwell è stato cambiato in " +
          '<strong>{{new_email}}</strong>. Se non sei stato tu, reimposta la password e contatta subito il tuo ' +
          'amministratore.</p>',
      ),
    },
  },
  {
    name: 'accounts.password_changed',
    subject: { en: 'Your Patchwell password was changed', it: 'La password di Patchwell è cambiata' },
    text: {
      en:
        'Hello {{name}},\n\nthe password of your Patchwell account was changed and your other sessions were ' +
        'closed. If you did not do this, reset your password at once: {{link}}\n',
      it:
        'Ciao {{name}},\n\nla password del tuo account Patchwell è stata cambiata e le altre sessioni sono ' +
        'state chiuse. Se non sei stato tu, reimposta subito la password: {{link}}\n',
    },
    html: {
      en: html(
        '<p>Hello {{name}},</p><p>the password of your Patchwell account was changed and your other sessions ' +
          'were closed. If you did not do this, reset your password at once.</p>',
        '{{link}}',
        'Reset password',
      ),
      it: html(
        '<p>Ciao {{name}},</p><p>la password del tuo account Patchwell è stata cambiata e le altre sessioni ' +
          'sono state chiuse. Se non sei stato tu, reimposta subito la password.</p>',
        '{{link}}',
        'Reimposta la password',
      ),
    },
  },
];
