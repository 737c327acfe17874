import t from 'tap';
import Joi from 'joi';
import { iso, isoTime, nullableTime } from '../../core/http/times.js';

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

t.test('the schema helpers take what iso() writes and say whether a time may be missing', (t) => {
  const answer = Joi.object({ created_at: isoTime().required(), closed_at: nullableTime() });
  const written = iso(new Date('2026-11-29T10:00:00Z'));
  t.error(answer.validate({ created_at: written, closed_at: null }).error, 'a time and a null');
  t.error(answer.validate({ created_at: written, closed_at: written }).error);
  t.match(answer.validate({ created_at: 'yesterday', closed_at: null }).error?.message, /must be in iso format/);
  t.match(answer.validate({ created_at: written }).error?.message, /"closed_at" is required/, 'null, not absent');
  t.match(answer.validate({ created_at: null, closed_at: null }).error?.message, /must be a string/);
  t.end();
});
