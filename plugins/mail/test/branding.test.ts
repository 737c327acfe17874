// The mail plugin's brand chrome, without an app: a template's own slots, the generated HTML,
// the text part's badge line, and escaping of what the brand gives.
import t from 'tap';
import { brandHtml, brandText, type MailBrand } from '../services/branding.js';
import { checkTemplate, MailTemplateError, renderTemplate } from '../services/templates.js';

const brand: MailBrand = {
  name: 'Acme <b>',
  logoUrl: null,
  color: '#14532d',
  fontStack: '"Lora", Georgia, serif',
  showBadge: true,
  from: null,
  fromName: null,
};

t.test("a template's slots take the header and badge; without a brand they disappear", (t) => {
  const html = '<html><body><!--brand:header--><main>x</main><!--brand:footer--></body></html>';
  const out = brandHtml(html, brand, 'en');
  t.match(
    out,
    /<body><div data-testid="brand-header" style="background:#14532d;color:#ffffff;[^"]*font-family:&quot;Lora&quot;, Georgia, serif"><strong data-testid="brand-name"[^>]*>Acme &lt;b&gt;<\/strong><\/div><main>/,
  );
  t.match(out, /<\/main><p data-testid="engine-badge"[^>]*>Support by Patchwell<\/p><\/body>/);
  t.equal(brandHtml(html, null, 'en'), '<html><body><main>x</main></body></html>');
  t.notMatch(brandHtml(html, { ...brand, showBadge: false }, 'it'), /engine-badge/);
  t.end();
});

t.test('generated HTML gets the header after <body>, the brand font and the badge before </body>', (t) => {
  const r = renderTemplate(
    { name: 'x.notice', subject: { en: 'Hi', it: 'Ciao' }, text: { en: 'Hello {{who}}', it: 'Ciao {{who}}' } },
    'it',
    { who: 'Ada' },
    { ...brand, logoUrl: 'https://cdn.acme.test/l.png' },
  );
  t.match(
    r.html,
    /<body style="font-family: &quot;Lora&quot;, Georgia, serif; [^"]*">\n<div data-testid="brand-header"[^>]*><img src="https:\/\/cdn\.acme\.test\/l\.png" alt="Acme &lt;b&gt;"/,
  );
  t.match(r.html, /Assistenza di Patchwell<\/p>\n<\/body>/);
  t.equal(r.text, 'Ciao Ada\n\n--\nAssistenza di Patchwell\n');
  t.equal(brandText('Body\n', { ...brand, showBadge: false }, 'en'), 'Body\n', 'no badge line when removed');
  t.equal(
    brandHtml('<p>x</p>', { ...brand, color: 'red;x:expression(1)' }, 'en').includes('background:#1f2328'),
    true,
    'a color that is not #rrggbb falls back to neutral',
  );
  t.end();
});

t.test("a template's audience is customer or team", (t) => {
  t.throws(
    () =>
      checkTemplate({
        name: 'x.y',
        subject: { en: 'a', it: 'a' },
        text: { en: 'a', it: 'a' },
        audience: 'everyone' as never,
      }),
    MailTemplateError,
  );
  t.doesNotThrow(() =>
    checkTemplate({ name: 'x.y', subject: { en: 'a', it: 'a' }, text: { en: 'a', it: 'a' }, audience: 'team' }),
  );
  t.end();
});
