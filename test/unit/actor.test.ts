import t from 'tap';
import {
  actorOfPrincipal,
  anonymousActor,
  clientAddress,
  systemActor,
  userActor,
  userAgentOf,
} from '../../core/http/actor.js';
import type { Principal } from '../../core/http/auth.js';

/**
 * The one trusted-proxy rule. Each proxy appends the address it received the connection from, so
 * only the entries added by our own proxies can be believed: a client can write anything to the left.
 */

const SOCKET = '10.0.0.2'; // the nearest proxy, or the client itself when nothing is in front
const req = (xff?: string | string[]) => ({
  info: { remoteAddress: SOCKET, id: 'req-1' },
  headers: xff === undefined ? {} : { 'x-forwarded-for': xff },
});

t.test('with no trusted proxy a client cannot choose its address', (t) => {
  t.equal(clientAddress(req('203.0.113.66'), false), SOCKET, 'trustProxy false: the socket');
  t.equal(clientAddress(req('203.0.113.66, 198.51.100.1'), 0), SOCKET, 'trustProxy 0: the socket');
  t.end();
});

t.test('with n trusted hops the client is the n-th address from the right', (t) => {
  // The client forged "1.2.3.4"; our load balancer appended what it saw (198.51.100.7).
  t.equal(clientAddress(req('1.2.3.4, 198.51.100.7'), 1), '198.51.100.7', 'one proxy: its own entry');
  // CDN saw the client (198.51.100.7) and appended it; the load balancer appended the CDN (192.0.2.50).
  t.equal(clientAddress(req('1.2.3.4, 198.51.100.7, 192.0.2.50'), 2), '198.51.100.7', 'two proxies: the CDN’s entry');
  t.equal(clientAddress(req(['1.2.3.4', '198.51.100.7']), 1), '198.51.100.7', 'repeated headers read as one list');
  t.equal(clientAddress(req('198.51.100.7'), 3), '198.51.100.7', 'fewer hops than trusted: the farthest address');
  t.equal(clientAddress(req(), 1), SOCKET, 'no header: the socket');
  t.equal(clientAddress(req('1.2.3.4, 2001:db8::7'), 1), '2001:db8::7', 'IPv6 addresses');
  t.end();
});

t.test('trusting every hop takes the leftmost address (only behind a proxy that overwrites the header)', (t) => {
  t.equal(clientAddress(req('203.0.113.5, 10.0.0.1'), true), '203.0.113.5');
  t.end();
});

t.test('an entry that is not an address never becomes the client', (t) => {
  t.equal(clientAddress(req('<script>, 198.51.100.7'), true), SOCKET, 'garbage in the picked slot: the socket');
  t.equal(clientAddress(req('1.2.3.4, unknown'), 1), SOCKET, 'a proxy that wrote "unknown": the socket');
  t.equal(clientAddress(req(' , '), 1), SOCKET, 'an empty list: the socket');
  t.end();
});

t.test('actors: a principal maps to the audit identity, a system actor has no request', (t) => {
  const base: Principal = {
    kind: 'session',
    userId: 'usr_1',
    orgId: 'org_1',
    role: 'owner',
    staff: false,
    email: 'o@acme.test',
    locale: 'en',
    workspaceIds: null,
  };
  const from = { ip: '198.51.100.7', userAgent: 'curl/8', requestId: 'req-1' };
  t.match(actorOfPrincipal(base, from), {
    type: 'user',
    id: 'usr_1',
    email: 'o@acme.test',
    orgId: 'org_1',
    ip: '198.51.100.7',
    requestId: 'req-1',
  });
  t.match(actorOfPrincipal({ ...base, kind: 'token', tokenId: 'tok_9' }, from), {
    type: 'token',
    id: 'tok_9',
    userId: 'usr_1',
    tokenId: 'tok_9',
  });
  t.match(systemActor('billing', 'org_1'), {
    type: 'system',
    id: 'billing',
    orgId: 'org_1',
    principal: null,
    ip: null,
    userAgent: null,
    requestId: null,
  });
  t.equal(
    userAgentOf({ info: { remoteAddress: SOCKET }, headers: { 'user-agent': 'x'.repeat(600) } })?.length,
    512,
    'user agents are cut at 512',
  );
  t.equal(userAgentOf({ info: { remoteAddress: SOCKET }, headers: {} }), null);
  t.end();
});

t.test('request details passed as a whole actor lend only where the call came from', (t) => {
  // Sign-in routes hand the anonymous request actor on as the details of the person who just proved who they are.
  const anonymous = anonymousActor({ ip: '198.51.100.7', userAgent: 'Firefox', requestId: 'req-9' });
  const user = userActor({ id: 'usr_1', email: 'ada@example.com', org_id: 'org_1' }, anonymous);
  t.same(
    [user.type, user.id, user.orgId, user.ip, user.userAgent, user.requestId],
    ['user', 'usr_1', 'org_1', '198.51.100.7', 'Firefox', 'req-9'],
  );
  const p: Principal = {
    kind: 'session',
    userId: 'usr_2',
    orgId: 'org_2',
    role: 'owner',
    staff: false,
    email: null,
    locale: 'en',
    workspaceIds: null,
  };
  const signedIn = actorOfPrincipal(p, anonymous);
  t.same([signedIn.type, signedIn.id, signedIn.orgId, signedIn.ip], ['user', 'usr_2', 'org_2', '198.51.100.7']);
  t.end();
});
