import t from 'tap';
import { randomBytes } from 'node:crypto';
import { SecretBox, SecretBoxError, last4 } from '../../core/security/secret-box.js';
import { PasswordHasher } from '../../core/security/passwords.js';
import { newToken, hashToken, safeEqual, hmacSha256Hex } from '../../core/security/tokens.js';
import { verifySha256Header } from '../../core/contracts/index.js';

const key = () => randomBytes(32).toString('base64');

t.test('secret box seals and opens, bound to its context', (t) => {
  const box = new SecretBox(`a:${key()}`);
  const sealed = box.encrypt('sk_live_1234', 'connector:c1:api_key');
  t.notMatch(sealed, /sk_live/);
  t.equal(box.decrypt(sealed, 'connector:c1:api_key'), 'sk_live_1234');
  t.throws(() => box.decrypt(sealed, 'connector:c2:api_key'), SecretBoxError, 'another row cannot open it');
  const parts = sealed.split('.');
  parts[4] = Buffer.from('tampered').toString('base64url');
  t.throws(() => box.decrypt(parts.join('.'), 'connector:c1:api_key'), SecretBoxError, 'tampering is detected');
  t.equal(last4('sk_live_1234'), '1234');
  t.end();
});

t.test('key rotation: new key first, old ciphertexts still open', (t) => {
  const oldKey = `old:${key()}`;
  const sealed = new SecretBox(oldKey).encrypt('s3cret');
  const ring = new SecretBox(`new:${key()},${oldKey}`);
  t.equal(ring.decrypt(sealed), 's3cret');
  t.ok(ring.needsRotation(sealed));
  t.notOk(ring.needsRotation(ring.encrypt('x')));
  t.throws(() => new SecretBox(`new:${key()}`).decrypt(sealed), /not in SECRET_KEYS/);
  t.throws(() => new SecretBox('short:AAAA'), /32 bytes/);
  t.end();
});

t.test('password hashes verify, refuse wrong passwords, carry their cost', async (t) => {
  const h = new PasswordHasher(12);
  const stored = await h.hash('correct horse battery');
  t.match(stored, /^scrypt\$12\$8\$1\$/);
  t.ok(await h.verify('correct horse battery', stored));
  t.notOk(await h.verify('correct horse batterx', stored));
  t.notOk(await h.verify('anything', null), 'a missing hash never verifies');
  t.ok(new PasswordHasher(13).needsRehash(stored));
  t.ok(await new PasswordHasher(13).verify('correct horse battery', stored), 'old cost still verifies');
});

t.test('tokens are 256-bit, stored as hashes, compared in constant time', (t) => {
  const { token, hash } = newToken('pws');
  t.match(token, /^pws_[A-Za-z0-9_-]{43}$/);
  t.equal(hash, hashToken(token));
  t.not(hash, token);
  t.ok(safeEqual('abc', 'abc'));
  t.notOk(safeEqual('abc', 'abd'));
  t.notOk(safeEqual('abc', 'abcd'));
  const sig = 'sha256=' + hmacSha256Hex('k', 'body');
  const verify = (value: string | undefined, body: string) =>
    verifySha256Header(value === undefined ? {} : { 'x-signature': value }, 'x-signature', 'k', Buffer.from(body));
  t.ok(verify(sig, 'body'));
  t.notOk(verify(sig, 'body!'));
  t.notOk(verify(undefined, 'body'));
  t.notOk(verify(sig.replace('sha256=', 'sha1='), 'body'));
  t.end();
});
