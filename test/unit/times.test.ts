import t from 'tap';
import { iso } from '../../core/http/times.js';

t.test('iso writes a stored time as the API answers it', (t) => {
  const at = new Date('2026-11-29T10:00:00.123Z');
  t.equal(iso(at), '2026-11-29T10:00:00.123Z', 'a Date from pg');
  t.equal(iso('2026-11-29 11:00:00.123+01'), '2026-11-29T10:00:00.123Z', "a JSON path's text, in UTC");
  t.equal(iso(null), null, 'a missing time stays null');
  t.equal(iso(undefined), null);
  t.equal(iso(''), null, 'an empty text is no time');
  t.throws(() => iso('not a time'), RangeError, 'a value that is no time is a bug, not a silent null');
  t.end();
});
