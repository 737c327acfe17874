import t from 'tap';
import { newId, idTime } from '../../core/data/ids.js';

t.test('ids are prefixed, 26 characters of body and sort by time', async (t) => {
  const a = newId('tkt', 1_700_000_000_000);
  const b = newId('tkt', 1_700_000_000_001);
  t.match(a, /^tkt_[0-9a-z]{26}$/);
  t.ok(a < b);
  t.equal(idTime(a), 1_700_000_000_000);
  t.equal(idTime('nope'), null);
});
