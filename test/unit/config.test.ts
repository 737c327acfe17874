import t from 'tap';
import { spawnSync } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../core/kernel/config.js';

t.test('defaults load and validate', (t) => {
  const c = loadConfig({ env: {} });
  t.equal(c.server.port, 3000);
  t.equal(c.database.url, null);
  t.equal(c.bus.url, null);
  t.end();
});

t.test('the environment maps onto config keys', (t) => {
  const c = loadConfig({
    env: {
      PORT: '4000',
      DATABASE_URL: 'postgres://u@h/db',
      AMQP_URL: 'amqp://g:g@h:5672',
      BUS_EXCHANGE: 'patchwell_staging',
      DASHBOARD_ORIGINS: 'https://a.example, https://b.example',
      MAIL_PROVIDER: 'smtp',
      PUBLIC_BASE_URL: 'https://pw.example/',
    },
  });
  t.equal(c.server.port, 4000);
  t.equal(c.database.url, 'postgres://u@h/db');
  t.equal(c.bus.url, 'amqp://g:g@h:5672');
  t.equal(c.bus.exchange, 'patchwell_staging');
  t.same(c.server.dashboardOrigins, ['https://a.example', 'https://b.example']);
  t.equal(c.adapters.channel, 'mail-smtp');
  t.equal(c.server.publicBaseUrl, 'https://pw.example');
  t.end();
});

void t.test('PORT moves the local public address with it, never one that was set', (t) => {
  t.equal(loadConfig({ env: { PORT: '4100' } }).server.publicBaseUrl, 'http://localhost:4100');
  t.equal(
    loadConfig({ env: { PORT: '0' } }).server.publicBaseUrl,
    'http://localhost:3000',
    'an ephemeral port has no address yet',
  );
  const set = loadConfig({ env: { PORT: '4100', PUBLIC_BASE_URL: 'https://support.example' } });
  t.equal(set.server.publicBaseUrl, 'https://support.example');
  const dir = mkdtempSync(join(tmpdir(), 'pwcfg-'));
  const file = join(dir, 'c.json');
  writeFileSync(file, JSON.stringify({ server: { publicBaseUrl: 'https://behind.proxy.example' } }));
  t.equal(
    loadConfig({ env: { PORT: '4100', CONFIG_FILE: file } }).server.publicBaseUrl,
    'https://behind.proxy.example',
  );
  t.end();
});

t.test('CONFIG_FILE merges over defaults', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pwcfg-'));
  const file = join(dir, 'c.json');
  writeFileSync(file, JSON.stringify({ bus: { prefetch: 3 }, plugins: { hello: { enabled: false } } }));
  const c = loadConfig({ env: { CONFIG_FILE: file } });
  t.equal(c.bus.prefetch, 3);
  t.equal(c.bus.maxAttempts, 5, 'siblings keep their defaults');
  t.equal(c.plugins.hello?.enabled, false);
  t.end();
});

t.test('a wrong value names the key', (t) => {
  t.throws(() => loadConfig({ env: {}, overrides: { bus: { prefetch: 0 } } }), {
    name: 'ConfigError',
    message: /config key bus\.prefetch/,
  });
  t.throws(() => loadConfig({ env: { DATABASE_URL: 'mysql://x' } }), /config key database\.url/);
  t.throws(() => loadConfig({ env: { PORT: 'eighty' } }), /PORT/);
  t.throws(() => loadConfig({ env: { BUS_EXCHANGE: 'two words' } }), /config key bus\.exchange/);
  t.end();
});

t.test('booting with a bad config value exits non-zero with a clear message', (t) => {
  const res = spawnSync(process.execPath, ['--import', 'tsx', 'bin/patchwell.ts', '--role', 'api'], {
    env: { ...process.env, DATABASE_URL: '', AMQP_URL: '', PORT: '0', LOG_LEVEL: 'nope', DATA_DIR: ':memory:' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  t.not(res.status, 0);
  t.match(res.stderr, /config key log\.level/);
  t.end();
});

t.test('an unknown role stops boot', (t) => {
  const res = spawnSync(process.execPath, ['--import', 'tsx', 'bin/patchwell.ts', '--role', 'cook'], {
    env: { ...process.env, DATA_DIR: ':memory:' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  t.not(res.status, 0);
  t.match(res.stderr, /--role must be/);
  t.end();
});
