import t from 'tap';
import { expectStatus, harness, sessionSetCookie } from './helpers.js';

t.test('an https deployment gets Secure cookies and https links', async (t) => {
  const h = await harness(t, { server: { publicBaseUrl: 'https://app.example.test' } });
  const res = await h.call(null, 'POST', '/v1/auth/signup', {
    name: 'Sec',
    email: 'secure@example.test',
    password: 'a long enough password',
    organization_name: 'Secure Co',
    accept_terms: true,
  });
  expectStatus(t, res, 201, 'signed up');
  t.match(sessionSetCookie(res), /; Secure/, 'the session cookie is Secure');
  t.match(sessionSetCookie(res), /HttpOnly/);
  const [mail] = await h.mails('secure@example.test', 'accounts.verify_email');
  t.match(mail.text, /https:\/\/app\.example\.test\/verify-email\?token=pwv_/, 'links are built on PUBLIC_BASE_URL');
  const out = await h.call(null, 'POST', '/v1/auth/logout');
  t.match(sessionSetCookie(out), /; Secure/, 'the clearing cookie is Secure too');
});
