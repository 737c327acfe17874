import t from 'tap';
import { increasingId, newId, idTime } from '../../core/data/ids.js';

t.test('ids are prefixed, 26 characters of body and sort by time', async (t) => {
  const a = newId('tkt', 1_700_000_000_000);
  const b = newId('tkt', 1_700_000_000_001);
  t.match(a, /^tkt_[0-9a-z]{26}$/);
  t.ok(a < b);
  t.equal(idTime(a), 1_700_000_000_000);
  t.equal(idTime('nope'), null);
});

t.test('increasingId keeps the order ids are made in, within one millisecond too', async (t) => {
  const ids = Array.from({ length: 2000 }, () => increasingId('evt'));
  t.same([...ids].sort(), ids, 'sorted order is creation order');
  t.equal(new Set(ids).size, ids.length, 'no two alike');
  t.match(ids[0], /^evt_[0-9a-z]{26}$/);
});
