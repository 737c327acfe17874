import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { serveHttpPeer } from '../../../test/helpers/http-peer.js';

/**
 * A small local peer of the two services the adapter calls (no emulator is installed):
 * - STS query protocol: `POST /` form `Action=AssumeRole&RoleArn&ExternalId&RoleSessionName…`,
 *   answered with the `AssumeRoleResponse` XML carrying session credentials. It acts as the
 *   role's trust policy: the caller's access key (from the SigV4 `Authorization` header) must be
 *   the service's, and ExternalId must be the one the role requires; otherwise 403 AccessDenied.
 * - Logs JSON protocol: `POST /` with `X-Amz-Target: Logs_20140328.FilterLogEvents` and a JSON
 *   body; only the session credentials it issued are accepted (400
 *   UnrecognizedClientException), unknown groups are 400 ResourceNotFoundException, pages
 *   follow `nextToken`. `fail` makes the next Logs calls throttle (`throttle`) or answer 500.
 */
export interface CloudPeer {
  url: string;
  accessKeyId: string;
  secretAccessKey: string;
  roleArn: string;
  externalId: string;
  logGroup: string;
  events: Array<{ eventId: string; timestamp: number; message: string; logStreamName: string; ingestionTime: number }>;
  pageSize: number;
  fail: Array<'throttle' | 500>;
  assumeCalls: Array<Record<string, string>>;
  filterCalls: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

const accessKeyOf = (auth: string | undefined) => /Credential=([^/]+)\//.exec(auth ?? '')?.[1];

export async function startCloudPeer(): Promise<CloudPeer> {
  const sessions = new Map<string, string>();
  const peer: CloudPeer = {
    url: '',
    accessKeyId: 'AKIAPEERSERVICE00001',
    secretAccessKey: 'peer/secret/key/0123456789abcdefghijklmn',
    roleArn: 'arn:aws:iam::123456789012:role/patchwell-logs',
    externalId: `pw-${randomBytes(16).toString('hex')}`,
    logGroup: '/aws/lambda/shop-checkout',
    events: [],
    pageSize: 2,
    fail: [],
    assumeCalls: [],
    filterCalls: [],
    close: () => Promise.resolve(),
  };
  const server = await serveHttpPeer((req, body, res) => {
    const raw = body.toString('utf8');
    const target = req.headers['x-amz-target'];
    if (req.method === 'POST' && target === 'Logs_20140328.FilterLogEvents') return logs(raw, req, res);
    if (req.method === 'POST' && !target) return sts(raw, req, res);
    res.writeHead(404).end();
  });

  const stsError = (res: http.ServerResponse, status: number, code: string, message: string) => {
    res.writeHead(status, { 'content-type': 'text/xml' });
    res.end(
      `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>req-1</RequestId></ErrorResponse>`,
    );
  };

  function sts(raw: string, req: http.IncomingMessage, res: http.ServerResponse) {
    const form = Object.fromEntries(new URLSearchParams(raw));
    peer.assumeCalls.push(form);
    if (form.Action !== 'AssumeRole') return stsError(res, 400, 'InvalidAction', 'Could not find operation');
    if (accessKeyOf(req.headers.authorization) !== peer.accessKeyId)
      return stsError(res, 403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
    if (form.RoleArn !== peer.roleArn || form.ExternalId !== peer.externalId) {
      return stsError(
        res,
        403,
        'AccessDenied',
        `User: arn:aws:iam::000000000000:user/patchwell is not authorized to perform: sts:AssumeRole on resource: ${form.RoleArn}`,
      );
    }
    const keyId = `ASIA${randomBytes(8).toString('hex').toUpperCase()}`;
    const token = randomBytes(24).toString('base64');
    sessions.set(keyId, token);
    const expiration = new Date(Date.now() + Number(form.DurationSeconds ?? 3600) * 1000).toISOString();
    res.writeHead(200, { 'content-type': 'text/xml' });
    res.end(`<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleResult>
    <Credentials>
      <AccessKeyId>${keyId}</AccessKeyId>
      <SecretAccessKey>${randomBytes(20).toString('hex')}</SecretAccessKey>
      <SessionToken>${token}</SessionToken>
      <Expiration>${expiration}</Expiration>
    </Credentials>
    <AssumedRoleUser>
      <AssumedRoleId>AROAPEER:${form.RoleSessionName}</AssumedRoleId>
      <Arn>arn:aws:sts::123456789012:assumed-role/patchwell-logs/${form.RoleSessionName}</Arn>
    </AssumedRoleUser>
  </AssumeRoleResult>
  <ResponseMetadata><RequestId>req-2</RequestId></ResponseMetadata>
</AssumeRoleResponse>`);
  }

  function logs(raw: string, req: http.IncomingMessage, res: http.ServerResponse) {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': 'req-3' });
      res.end(JSON.stringify(body));
    };
    const keyId = accessKeyOf(req.headers.authorization);
    if (!keyId || !sessions.has(keyId) || sessions.get(keyId) !== req.headers['x-amz-security-token']) {
      return send(400, {
        __type: 'UnrecognizedClientException',
        message: 'The security token included in the request is invalid.',
      });
    }
    const body = JSON.parse(raw) as {
      logGroupName?: string;
      startTime?: number;
      endTime?: number;
      filterPattern?: string;
      nextToken?: string;
      limit?: number;
    };
    peer.filterCalls.push(body);
    const failing = peer.fail.shift();
    if (failing === 'throttle') return send(400, { __type: 'ThrottlingException', message: 'Rate exceeded' });
    if (failing === 500) return send(500, { __type: 'ServiceUnavailableException', message: 'Internal error' });
    if (body.logGroupName !== peer.logGroup)
      return send(400, { __type: 'ResourceNotFoundException', message: 'The specified log group does not exist.' });
    const terms = (body.filterPattern ?? '').split(/\s+/).filter(Boolean);
    const anyOf = terms.filter((x) => x.startsWith('?')).map((x) => x.slice(1));
    const allOf = terms.filter((x) => !x.startsWith('?'));
    const matching = peer.events
      .filter((e) => e.timestamp >= (body.startTime ?? 0) && e.timestamp <= (body.endTime ?? Infinity))
      .filter(
        (e) => (!anyOf.length || anyOf.some((x) => e.message.includes(x))) && allOf.every((x) => e.message.includes(x)),
      )
      .sort((a, b) => a.timestamp - b.timestamp);
    const offset = body.nextToken ? Number(Buffer.from(body.nextToken, 'base64').toString('utf8').split(':')[1]) : 0;
    const limit = Math.min(body.limit ?? 10_000, peer.pageSize);
    const page = matching.slice(offset, offset + limit);
    const more = offset + limit < matching.length;
    return send(200, {
      events: page,
      searchedLogStreams: [],
      ...(more ? { nextToken: Buffer.from(`Bxkq6kVGFtq2y_Moigeqscg:${offset + limit}`).toString('base64') } : {}),
    });
  }

  peer.url = server.url;
  peer.close = () => server.close();
  return peer;
}

let seq = 0;

/** A log event as FilterLogEvents answers it. */
export function logEvent(at: number, message: string): CloudPeer['events'][number] {
  seq++;
  return {
    eventId: `3778${String(seq).padStart(52, '0')}`,
    timestamp: at,
    ingestionTime: at + 50,
    logStreamName: '2026/11/20/[$LATEST]abc',
    message,
  };
}
