import t from 'tap';
import { loopOnHost } from './fixtures/loop-on-host.js';

// An IP address: the mail domain is `localhost` (an address on an IP is no address).
loopOnHost(t, 'http://127.0.0.1:3000', 'localhost');
