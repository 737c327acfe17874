import t from 'tap';
import {
  criticalPathHit,
  fingerprintOf,
  isInApp,
  maskText,
  normalizeFile,
  normalizeMessage,
  parseStack,
} from '../services/grouping.js';

t.test('stacks of V8 and Firefox parse into frames', (t) => {
  const v8 = parseStack(
    'Error: x\n    at Cart.render (https://a.test/static/app.1a2b3c4d5e.js:10:5)\n    at async load (/srv/app/node_modules/lib/index.js:3:1)\n    at node:internal/process:1:1',
  );
  t.same(
    v8.map((f) => [f.function, f.line, f.column]),
    [
      ['Cart.render', 10, 5],
      ['load', 3, 1],
      [undefined, 1, 1],
    ],
  );
  t.same(v8.map(isInApp), [true, false, false]);
  const ff = parseStack('render@https://a.test/app.js:4:2\n@https://a.test/vendor/jquery.min.js:1:1');
  t.same(
    ff.map((f) => f.function ?? null),
    ['render', null],
  );
  t.equal(normalizeFile('https://cdn.test/static/js/main.3f9a1c2b.js?v=3'), '/static/js/main.js');
  t.end();
});

t.test('messages lose their variable parts', (t) => {
  t.equal(
    normalizeMessage('Order 42 of user 0x1f failed: "abc" at 2024-01-02'),
    normalizeMessage('Order 97 of user 0xff failed: "zzz" at 2025-11-30'),
  );
  t.equal(normalizeMessage('id 550e8400-e29b-41d4-a716-446655440000'), 'id <uuid>');
  t.not(normalizeMessage('cannot save cart'), normalizeMessage('cannot load cart'));
  const a = fingerprintOf({ type: 'E', message: 'x 1', frames: parseStack('at f (/a.js:1:1)') });
  const b = fingerprintOf({ type: 'E', message: 'x 2', frames: parseStack('at f (/a.js:9:9)') });
  const c = fingerprintOf({ type: 'E', message: 'x 2', frames: parseStack('at g (/a.js:9:9)') });
  t.equal(a, b, 'lines do not split');
  t.not(a, c, 'functions do');
  t.equal(
    fingerprintOf({ type: 'A', message: '1', frames: [], fingerprint: 'k' }),
    fingerprintOf({ type: 'B', message: '2', frames: [], fingerprint: 'k' }),
  );
  t.end();
});

t.test('masking and critical paths (release order: error-groups.test.ts, regression by release)', (t) => {
  t.equal(maskText('mail bob@example.org now'), 'mail b***@e***.org now');
  t.equal(maskText('card 4111-1111-1111-1111'), 'card **** **** **** 1111');
  t.equal(maskText('order 1234567890123 shipped'), 'order 1234567890123 shipped', 'a number that fails Luhn stays');
  t.equal(maskText('password=hunter2hunter2'), 'password=[redacted]');
  t.ok(criticalPathHit(['/checkout'], 'https://x.test/checkout/pay', []));
  t.notOk(criticalPathHit(['/checkout'], 'https://x.test/cart', []));
  t.ok(criticalPathHit(['payments/'], undefined, [{ file: '/src/payments/charge.ts' }]));
  t.end();
});
