import t from 'tap';
import { loopOnHost } from './fixtures/loop-on-host.js';

// A real domain: the addresses are on it.
loopOnHost(t, 'https://help.acme-shop.test', 'help.acme-shop.test');
