/** A code host's webhook deliveries, read into events. */

/** Kinds of webhook event the service reads; everything else is `other`. */
export type CodeHostEventKind =
  | 'ping'
  | 'installation'
  | 'installation_repositories'
  | 'repository'
  | 'issue'
  | 'issue_comment'
  | 'pull_request'
  | 'pull_request_review'
  | 'push'
  | 'check'
  | 'other';
export const CODE_HOST_EVENT_KINDS: readonly CodeHostEventKind[] = [
  'ping',
  'installation',
  'installation_repositories',
  'repository',
  'issue',
  'issue_comment',
  'pull_request',
  'pull_request_review',
  'push',
  'check',
  'other',
];

/** One webhook delivery, read. Later issues narrow `payload` per kind. */
export interface CodeHostEvent {
  /** Delivery id: deliveries are deduplicated by it. */
  deliveryId: string;
  kind: CodeHostEventKind;
  /** The host's own event name, e.g. `pull_request`, `check_suite`. */
  name: string;
  /** E.g. `opened`, `closed`, `created`; null when the event has none. */
  action: string | null;
  installationId: string | null;
  repository: { id: string; fullName: string } | null;
  sender: { login: string } | null;
  /** The body as the host sent it. */
  payload: Record<string, unknown>;
}
