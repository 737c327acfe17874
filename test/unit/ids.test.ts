import t from 'tap';
import { increasingId, newId, idTime } from '../../core/data/ids.js';

t.test('ids are prefixed, 26 characters of body and sort by time', (t) => {
  const a = newId('tkt', 1_700_000_000_000);
  const b = newId('tkt', 1_700_000_000_001);
  t.match(a, /^tkt_[0-9a-z]{26}$/);
  t.ok(a < b);
  t.equal(idTime(a), 1_700_000_000_000);
  t.equal(idTime('nope'), null);
  t.end();
});

t.test('increasingId keeps the order ids are made in, within one millisecond too', (t) => {
  const ids = Array.from({ length: 2000 }, () => increasingId('evt'));
  t.same([...ids].sort(), ids, 'sorted order is creation order');
  t.equal(new Set(ids).size, ids.length, 'no two alike');
  t.match(ids[0], /^evt_[0-9a-z]{26}$/);
  t.end();
});

t.test('increasingId counts up within a millisecond and carries', (t) => {
  const a = increasingId('job');
  const b = increasingId('job');
  t.ok(a < b);
  t.equal(idTime(b)! >= idTime(a)!, true);
  // Many ids in a burst: consecutive ids of one millisecond differ by one in their last character (with carry).
  const ids = Array.from({ length: 5000 }, () => increasingId('job'));
  for (let i = 1; i < ids.length; i++) if (!(ids[i - 1] < ids[i])) t.fail(`${ids[i - 1]} then ${ids[i]}`);
  t.equal(new Set(ids).size, ids.length);
  // Prefixes keep their own sequences.
  const x = increasingId('aa');
  t.match(x, /^aa_[0-9a-z]{26}$/);
  t.end();
});

t.test('a prefix must be letters and digits', (t) => {
  t.throws(() => newId('bad prefix'), RangeError);
  t.throws(() => newId('x'.repeat(33)), RangeError);
  t.match(newId(''), /^_[0-9a-z]{26}$/);
  t.end();
});
