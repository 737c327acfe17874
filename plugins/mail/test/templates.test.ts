import t from 'tap';
import {
  MailTemplateError,
  checkTemplate,
  htmlFromText,
  renderTemplate,
  type MailTemplate,
} from '../services/templates.js';
import { escapeHtml } from '../../../core/http/html.js';

const welcome: MailTemplate = {
  name: 'test.welcome',
  subject: { en: 'Welcome, {{user.name}}', it: 'Benvenuto, {{user.name}}' },
  text: {
    en: 'Hello {{user.name}},\n\nopen {{link}} to start.\n\nThe Patchwell team',
    it: 'Ciao {{user.name}},\n\napri {{link}} per iniziare.\n\nIl team di Patchwell',
  },
};

t.test('a template renders in English and Italian', (t) => {
  const data = { user: { name: 'Ada' }, link: 'https://app.example.test/start?a=1&b=2' };
  const en = renderTemplate(welcome, 'en', data);
  const it = renderTemplate(welcome, 'it', data);
  t.equal(en.subject, 'Welcome, Ada');
  t.equal(it.subject, 'Benvenuto, Ada');
  t.match(en.text, /^Hello Ada,\n\nopen https:\/\/app\.example\.test\/start\?a=1&b=2 to start\./);
  t.match(it.text, /^Ciao Ada,\n\napri https:/);
  t.match(it.html, /<html lang="it">/);
  t.end();
});

t.test('without an HTML template the HTML part is the text in escaped paragraphs with clickable links', (t) => {
  const r = renderTemplate(welcome, 'en', {
    user: { name: '<b>Ada & "Bob"</b>' },
    link: 'https://app.example.test/start?a=1&b=2.',
  });
  t.match(r.html, /<p>Hello &lt;b&gt;Ada &amp; &quot;Bob&quot;&lt;\/b&gt;,<\/p>/, 'values are escaped');
  t.match(
    r.html,
    /<a href="https:\/\/app\.example\.test\/start\?a=1&amp;b=2">https:\/\/app\.example\.test\/start\?a=1&amp;b=2<\/a>\. to start/,
    'the link is clickable; the full stop stays outside',
  );
  t.equal((r.html.match(/<p>/g) ?? []).length, 3, 'one paragraph per blank-line block');
  t.match(r.html, /<title>Welcome, &lt;b&gt;Ada/, 'the title is the escaped subject');
  t.equal(r.text.includes('<b>Ada & "Bob"</b>'), true, 'the text part keeps the value as it is');
  t.end();
});

t.test('line breaks inside a paragraph become <br>', (t) => {
  const html = htmlFromText('line one\nline two\n\nnext', 'S', 'en');
  t.match(html, /<p>line one<br>\nline two<\/p>\n<p>next<\/p>/);
  t.end();
});

t.test('values in an HTML template are escaped; the template markup is not', (t) => {
  const tpl: MailTemplate = {
    ...welcome,
    html: {
      en: '<p>Hello <strong>{{user.name}}</strong></p><a href="{{link}}">Start</a>',
      it: '<p>Ciao {{user.name}}</p>',
    },
  };
  const r = renderTemplate(tpl, 'en', { user: { name: '<script>x</script>' }, link: 'https://x.test/?a=1&b="2"' });
  t.equal(
    r.html,
    '<p>Hello <strong>&lt;script&gt;x&lt;/script&gt;</strong></p><a href="https://x.test/?a=1&amp;b=&quot;2&quot;">Start</a>',
  );
  t.end();
});

t.test('a subject stays on one line', (t) => {
  const r = renderTemplate(welcome, 'en', { user: { name: 'Ada\r\nBcc: evil@example.test' }, link: 'https://x.test' });
  t.equal(r.subject, 'Welcome, Ada Bcc: evil@example.test');
  t.end();
});

t.test('a placeholder without a value refuses to render', (t) => {
  t.throws(() => renderTemplate(welcome, 'en', { user: {}, link: 'x' }), {
    name: 'MailTemplateError',
    message: /test\.welcome \(subject\.en\): no value for \{\{user\.name\}\}/,
  });
  t.throws(() => renderTemplate(welcome, 'it', { user: { name: 'Ada' }, link: null }), {
    message: /text\.it.*\{\{link\}\}/,
  });
  t.throws(() => renderTemplate(welcome, 'en', { user: { name: { first: 'A' } }, link: 'x' }), {
    message: /is an object/,
  });
  const zero = renderTemplate({ ...welcome, subject: { en: '{{n}} new', it: '{{n}} nuovi' } }, 'en', {
    n: 0,
    user: { name: '' },
    link: 'x',
  });
  t.equal(zero.subject, '0 new', 'zero and empty strings are values');
  t.end();
});

t.test('templates need every part in every locale', (t) => {
  t.throws(() => checkTemplate({ ...welcome, name: 'Bad Name' }), MailTemplateError);
  t.throws(() => checkTemplate({ ...welcome, subject: { en: 'x' } as MailTemplate['subject'] }), {
    message: /subject\.it is missing/,
  });
  t.throws(() => checkTemplate({ ...welcome, html: { en: '<p>x</p>', it: ' ' } }), { message: /html\.it is missing/ });
  t.doesNotThrow(() => checkTemplate(welcome));
  t.end();
});

t.test('escapeHtml escapes the five characters', (t) => {
  t.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  t.end();
});
