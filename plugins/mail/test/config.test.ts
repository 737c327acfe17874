import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig } from '../../../core/kernel/config.js';

const SECRET = 'whsec-0123456789abcdef';

t.test('mail-outbox is the default channel adapter', (t) => {
  t.equal(loadConfig({ env: {} }).adapters.channel, 'mail-outbox');
  t.end();
});

t.test('EMAIL_WEBHOOK_SECRET reaches the selected channel adapter', (t) => {
  t.equal(
    loadConfig({ env: { EMAIL_WEBHOOK_SECRET: SECRET } }).adapters.options['mail-outbox']?.webhookSecret,
    SECRET,
    'the default adapter',
  );
  const ses = loadConfig({ env: { EMAIL_WEBHOOK_SECRET: SECRET, MAIL_PROVIDER: 'ses' } });
  t.equal(ses.adapters.channel, 'mail-ses');
  t.equal(ses.adapters.options['mail-ses']?.webhookSecret, SECRET, 'the one MAIL_PROVIDER selects');
  t.equal(ses.adapters.options['mail-outbox'], undefined, 'not the others');

  const dir = mkdtempSync(join(tmpdir(), 'pw-mail-cfg-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'c.json');
  writeFileSync(
    file,
    JSON.stringify({ adapters: { channel: 'mail-smtp', options: { 'mail-smtp': { host: 'smtp.example.test' } } } }),
  );
  const smtp = loadConfig({ env: { CONFIG_FILE: file, EMAIL_WEBHOOK_SECRET: SECRET } });
  t.same(
    smtp.adapters.options['mail-smtp'],
    { host: 'smtp.example.test', webhookSecret: SECRET },
    'the one CONFIG_FILE selects, next to its other options',
  );
  t.end();
});
