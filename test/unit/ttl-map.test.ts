import t from 'tap';
import { TtlMap } from '../../core/data/ttl-map.js';

t.test('entries expire after ttlMs, a full map starts over, null is a value', (t) => {
  const m = new TtlMap<string, string | null>(1000, 2);
  m.set('a', 'x', 0);
  t.equal(m.get('a', 999), 'x');
  t.equal(m.get('a', 1000), undefined, 'expired at ttlMs');
  m.set('none', null, 0);
  t.equal(m.get('none', 10), null, 'a remembered "none" is not a miss');
  m.set('c', 'z', 0);
  t.equal(m.get('a', 10), undefined, 'full: emptied whole before the new entry');
  t.equal(m.get('c', 10), 'z');
  m.set('d', 'w', 0);
  m.deleteWhere((v) => v === 'w');
  t.equal(m.get('d', 10), undefined);
  t.equal(m.get('c', 10), 'z', 'the others stay');
  m.delete('c');
  t.equal(m.get('c', 10), undefined);
  t.end();
});
