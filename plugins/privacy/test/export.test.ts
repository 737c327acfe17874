import { gunzipSync } from 'node:zlib';
import t from 'tap';
import { addMember, signUp } from '../../../test/helpers/accounts.js';
import { emailIn, json, privacyApp, settle, workspace } from './helpers.js';

/** The files of a ustar archive. */
function untar(buf: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  for (let off = 0; off + 512 <= buf.length;) {
    const name = buf
      .subarray(off, off + 100)
      .toString('utf8')
      .replace(/\0.*$/s, '');
    if (!name) break;
    const size = parseInt(
      buf
        .subarray(off + 124, off + 136)
        .toString('utf8')
        .replace(/\0.*$/s, '')
        .trim(),
      8,
    );
    out[name] = buf.subarray(off + 512, off + 512 + size).toString('utf8');
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

t.test(
  'an owner exports the organization’s data: a worker builds the archive and emails an expiring link',
  async (t) => {
    const app = await privacyApp(t);
    const owner = await signUp(app, { orgName: 'Exporters' });
    const ws = await workspace(app, owner);
    await emailIn(app, ws.inbound_address, 'Eve <eve@example.org>', 'Export me.');
    const admin = await addMember(app, owner, { role: 'admin' });
    const stranger = await signUp(app, { orgName: 'Not in it' });
    await settle(app);

    t.equal(
      (await app.server.inject({ method: 'POST', url: '/v1/privacy/exports', ...admin.auth })).statusCode,
      403,
      'owners only',
    );
    const res = await app.server.inject({ method: 'POST', url: '/v1/privacy/exports', ...owner.auth });
    t.equal(res.statusCode, 202, res.payload);
    const exp = json<{ id: string; status: string }>(res);
    t.equal(exp.status, 'pending');

    // The worker (through the bus) builds it and the link goes out by email.
    let mail: { text: string } | undefined;
    for (let i = 0; i < 100 && !mail; i++) {
      await new Promise((r) => setTimeout(r, 100));
      mail = await app
        .db('mail_messages')
        .where({ template: 'privacy.export_ready', to_address: owner.email })
        .first<{ text: string } | undefined>('text');
    }
    t.ok(mail, 'the link is emailed to the owner');
    const url = /http:\/\/localhost:3000(\/downloads\/privacy-exports\/pwx_[\w-]{43})/.exec(mail!.text);
    t.ok(url, 'with a download link');
    const row = (await app.db('privacy_exports').where({ id: exp.id }).first()) as {
      status: string;
      download_token_hash: string;
      expires_at: Date;
    };
    t.equal(row.status, 'ready');
    t.notOk(mail!.text.includes(row.download_token_hash), 'only the hash of the link is stored');
    const days = (new Date(row.expires_at).getTime() - Date.now()) / 86_400_000;
    t.ok(days > 6.9 && days <= 7, 'valid 7 days');

    const dl = await app.server.inject({ method: 'GET', url: url![1] });
    t.equal(dl.statusCode, 200);
    t.equal(dl.headers['content-type'], 'application/gzip');
    const files = untar(gunzipSync(dl.rawPayload));
    const manifest = JSON.parse(files['manifest.json']) as { organization_id: string; tables: Record<string, number> };
    t.equal(manifest.organization_id, owner.organization.id);
    t.ok(manifest.tables.tickets >= 1 && manifest.tables.users >= 2, JSON.stringify(manifest.tables));
    t.ok(files['tickets.jsonl'].includes('eve@example.org'), 'the organization’s data is in it');
    const all = Object.values(files).join('\n');
    t.notOk(all.includes(stranger.organization.id), 'no other organization’s rows');
    t.notOk(/password_hash|token_hash|secret_encrypted/.test(all), 'no credentials');

    // The link expires.
    await app
      .db('privacy_exports')
      .where({ id: exp.id })
      .update({ expires_at: new Date(Date.now() - 1000) });
    t.equal((await app.server.inject({ method: 'GET', url: url![1] })).statusCode, 404, 'an expired link answers 404');
    t.equal(
      (await app.server.inject({ method: 'GET', url: '/downloads/privacy-exports/pwx_' + 'a'.repeat(43) })).statusCode,
      404,
    );
    const actions = (
      await app
        .db('audit_entries')
        .where({ org_id: owner.organization.id })
        .where('action', 'like', 'privacy.export%')
        .select<Array<{ action: string }>>('action')
    )
      .map((r) => r.action)
      .sort();
    t.same(actions, ['privacy.export_downloaded', 'privacy.export_requested'], 'audited');
  },
);
