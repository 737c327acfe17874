/**
 * Reading of GitHub-style webhook deliveries (X-GitHub-Event, X-GitHub-Delivery, JSON or
 * `payload=` form bodies), shared by codehost-github and codehost-local (whose git hooks speak
 * the same format, so the service handles one shape).
 */
import {
  PayloadError,
  headerValue,
  type CodeHostEvent,
  type CodeHostEventKind,
  type RawHeaders,
} from '../../core/contracts/index.js';
import { isCleanJsonText } from '../../core/http/input-guard.js';

const KINDS: Record<string, CodeHostEventKind> = {
  ping: 'ping',
  installation: 'installation',
  installation_repositories: 'installation_repositories',
  repository: 'repository',
  issues: 'issue',
  issue_comment: 'issue_comment',
  pull_request: 'pull_request',
  pull_request_review: 'pull_request_review',
  push: 'push',
  check_run: 'check',
  check_suite: 'check',
  status: 'check',
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const idOf = (v: unknown): string | null =>
  typeof v === 'number' || (typeof v === 'string' && v !== '') ? String(v) : null;

/** The JSON body of a delivery: a JSON document, or the `payload` field of a form-encoded body. */
export function webhookBody(headers: RawHeaders, rawBody: Buffer): Json {
  const type = (headerValue(headers, 'content-type') ?? 'application/json').toLowerCase();
  let text = rawBody.toString('utf8');
  if (type.startsWith('application/x-www-form-urlencoded')) text = new URLSearchParams(text).get('payload') ?? '';
  // The service's rule for text it stores (core/http/input-guard.ts), for the form-encoded JSON too.
  if (!isCleanJsonText(Buffer.from(text)))
    throw new PayloadError('the webhook body holds a NUL character or an unpaired surrogate');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new PayloadError('the webhook body is not JSON');
  }
  if (!isObject(parsed)) throw new PayloadError('the webhook body is not a JSON object');
  return parsed;
}

/** A delivery as a CodeHostEvent. PayloadError when the body or the event headers are missing. */
export function parseHubWebhook(headers: RawHeaders, rawBody: Buffer): CodeHostEvent {
  const name = headerValue(headers, 'x-github-event')?.trim();
  if (!name) throw new PayloadError('the X-GitHub-Event header is missing');
  const deliveryId = headerValue(headers, 'x-github-delivery')?.trim();
  if (!deliveryId) throw new PayloadError('the X-GitHub-Delivery header is missing');
  const payload = webhookBody(headers, rawBody);
  const installation = isObject(payload.installation) ? idOf(payload.installation.id) : null;
  const repo = isObject(payload.repository) ? payload.repository : null;
  const repoId = repo ? idOf(repo.id) : null;
  const sender =
    isObject(payload.sender) && typeof payload.sender.login === 'string' ? { login: payload.sender.login } : null;
  return {
    deliveryId: deliveryId.slice(0, 200),
    kind: KINDS[name] ?? 'other',
    name,
    action: typeof payload.action === 'string' ? payload.action : null,
    installationId: installation,
    repository: repo && repoId && typeof repo.full_name === 'string' ? { id: repoId, fullName: repo.full_name } : null,
    sender,
    payload,
  };
}
