import t from 'tap';
import { loopOnHost } from './fixtures/loop-on-host.js';

// localhost: the inbound domain is `inbound.localhost`.
loopOnHost(t, 'http://localhost:3000', 'localhost');
