import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { isApiError } from '../../api/errors';
import type { RequestBody } from '../../api/types';
import { inboxKeys, type Channel } from '../../queries/inbox';
import {
  Button,
  ConfirmAction,
  ErrorAlert,
  Form,
  SelectField,
  TextField,
  fieldError,
  useFormat,
  useToast,
} from '../../ui';

type Provider = RequestBody<'/v1/channels/{workspaceId}/forwarding', 'put'>['provider'];
const PROVIDERS: Provider[] = ['mail_a', 'mail_b', 'other'];

/** A mutation whose answer is the new Channel: the cache takes it. */
function useChannelMutation<V = void>(fn: (vars: V) => Promise<Channel>, onDone?: (c: Channel) => void) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: (c: Channel) => {
      client.setQueryData(inboxKeys.channel(c.workspace_id), c);
      onDone?.(c);
    },
  });
}

/**
 * Forwarding from the customer's own support address: recorded, tested (a code goes out and is
 * verified when it comes back through the forwarding; the channel is polled meanwhile), forgotten.
 */
export function Forwarding({ channel }: { channel: Channel }) {
  const { t } = useTranslation();
  const f = channel.forwarding;
  const [editing, setEditing] = useState(false);
  return (
    <section className="card stack" aria-labelledby="inbox-forwarding">
      <h2 id="inbox-forwarding">{t('inboxSettings.forwarding.title')}</h2>
      <p className="muted">{t('inboxSettings.forwarding.intro', { address: channel.inbound_address ?? '' })}</p>
      {f && !editing ? (
        <ForwardingState channel={channel} onChange={() => setEditing(true)} />
      ) : (
        <ForwardingForm
          channel={channel}
          onDone={() => setEditing(false)}
          onCancel={f ? () => setEditing(false) : undefined}
        />
      )}
    </section>
  );
}

function ForwardingForm({
  channel,
  onDone,
  onCancel,
}: {
  channel: Channel;
  onDone: () => void;
  onCancel?: () => void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const [address, setAddress] = useState(channel.forwarding?.address ?? '');
  const [provider, setProvider] = useState<Provider>(channel.forwarding?.provider ?? 'other');
  const save = useChannelMutation(
    () =>
      data(
        api.PUT('/v1/channels/{workspaceId}/forwarding', {
          params: { path: { workspaceId: channel.workspace_id } },
          body: { address: address.trim(), provider },
        }),
      ),
    () => {
      toast.success(t('inboxSettings.forwarding.saved'));
      onDone();
    },
  );
  return (
    <Form className="stack" onSubmit={() => save.mutate()}>
      <ErrorAlert error={save.error} fields={['address', 'provider']} />
      <div className="ws-fields">
        <TextField
          label={t('inboxSettings.forwarding.address')}
          type="email"
          value={address}
          onChange={(e) => setAddress(e.target.value)}
          hint={t('inboxSettings.forwarding.addressHint')}
          error={fieldError(save.error, 'address')}
        />
        <SelectField
          label={t('inboxSettings.forwarding.provider')}
          value={provider}
          onChange={(e) => setProvider(e.target.value as Provider)}
          error={fieldError(save.error, 'provider')}
        >
          {PROVIDERS.map((p) => (
            <option key={p} value={p}>
              {t(`inboxSettings.forwarding.providers.${p}`)}
            </option>
          ))}
        </SelectField>
      </div>
      <div className="row">
        <Button type="submit" variant="primary" pending={save.isPending}>
          {t('inboxSettings.forwarding.save')}
        </Button>
        {onCancel && <Button onClick={onCancel}>{t('common.cancel')}</Button>}
      </div>
    </Form>
  );
}

function ForwardingState({ channel, onChange }: { channel: Channel; onChange: () => void }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const f = channel.forwarding!;
  const gmail = channel.pending_gmail_confirmation;
  return (
    <div className="stack">
      <dl className="ws-facts">
        <dt>{t('inboxSettings.forwarding.address')}</dt>
        <dd>
          <code>{f.address}</code>
        </dd>
        <dt>{t('inboxSettings.forwarding.provider')}</dt>
        <dd>{t(`inboxSettings.forwarding.providers.${f.provider}`)}</dd>
        <dt>{t('inboxSettings.forwarding.state')}</dt>
        <dd>
          <span className={`inbox-status inbox-status-${f.verified_at ? 'verified' : 'pending'}`}>
            {f.verified_at ? t('inboxSettings.forwarding.verified') : t('inboxSettings.forwarding.notVerified')}
          </span>
          {f.verified_at && <span className="muted"> {fmt.dateTime(f.verified_at)}</span>}
        </dd>
        {f.test && (
          <>
            <dt>{t('inboxSettings.forwarding.lastTest')}</dt>
            <dd>
              {t('inboxSettings.forwarding.testSent', { code: f.test.code, at: fmt.dateTime(f.test.sent_at) })}
              {!f.verified_at && (
                <div className="muted" role="status">
                  {t('inboxSettings.forwarding.waiting')}
                </div>
              )}
            </dd>
          </>
        )}
        <dt>{t('inboxSettings.forwarding.lastForwarded')}</dt>
        <dd>{fmt.dateTime(f.last_forwarded_at) || t('inboxSettings.never')}</dd>
      </dl>
      {gmail && !gmail.verified && (
        <div className="alert alert-info" role="note">
          <strong>{t('inboxSettings.forwarding.gmailTitle')}</strong>
          {gmail.code && <div>{t('inboxSettings.forwarding.gmailCode', { code: gmail.code })}</div>}
          {gmail.url && (
            <div>
              <a href={gmail.url} target="_blank" rel="noreferrer">
                {t('inboxSettings.forwarding.gmailLink')}
              </a>
            </div>
          )}
        </div>
      )}
      <ForwardingTest workspaceId={channel.workspace_id} />
      <div className="row">
        <Button onClick={onChange}>{t('inboxSettings.forwarding.change')}</Button>
        <RemoveForwarding channel={channel} />
      </div>
    </div>
  );
}

/** Seconds to wait after a 429: Retry-After, else the error's details. */
function retryAfter(error: unknown): number | null {
  if (!isApiError(error) || error.status !== 429) return null;
  const fromDetails = Number(error.details.retry_after_seconds ?? error.details.retry_after);
  return error.retryAfter ?? (Number.isFinite(fromDetails) && fromDetails > 0 ? fromDetails : 60);
}

/** The test email; a 429 (one a minute) shows its countdown and keeps the button off until it ends. */
function ForwardingTest({ workspaceId }: { workspaceId: string }) {
  const { t } = useTranslation();
  const toast = useToast();
  const [until, setUntil] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const test = useChannelMutation(
    () => data(api.POST('/v1/channels/{workspaceId}/forwarding/test', { params: { path: { workspaceId } } })),
    (c) => toast.success(t('inboxSettings.forwarding.testSentToast', { address: c.forwarding?.address ?? '' })),
  );
  useEffect(() => {
    const wait = retryAfter(test.error);
    if (wait != null) {
      setUntil(Date.now() + wait * 1000);
      setNow(Date.now());
    }
  }, [test.error]);
  useEffect(() => {
    if (until == null) return;
    const timer = window.setInterval(() => {
      const n = Date.now();
      setNow(n);
      if (n >= until) {
        setUntil(null);
        test.reset();
      }
    }, 1000);
    return () => window.clearInterval(timer);
  }, [until, test]);
  const seconds = until == null ? 0 : Math.max(0, Math.ceil((until - now) / 1000));
  return (
    <div className="stack">
      <div>
        <Button variant="primary" pending={test.isPending} disabled={seconds > 0} onClick={() => test.mutate()}>
          {t('inboxSettings.forwarding.test')}
        </Button>
      </div>
      {seconds > 0 ? (
        <div className="alert alert-warning" role="status">
          {t('inboxSettings.forwarding.tooSoon', { count: seconds })}
        </div>
      ) : !isApiError(test.error) || test.error.status !== 429 ? (
        <ErrorAlert error={test.error} />
      ) : null}
    </div>
  );
}

function RemoveForwarding({ channel }: { channel: Channel }) {
  const { t } = useTranslation();
  const toast = useToast();
  const remove = useChannelMutation(
    () =>
      data(
        api.DELETE('/v1/channels/{workspaceId}/forwarding', {
          params: { path: { workspaceId: channel.workspace_id } },
        }),
      ),
    () => {
      toast.success(t('inboxSettings.forwarding.removed'));
    },
  );
  return (
    <ConfirmAction
      label={t('inboxSettings.forwarding.remove')}
      title={t('inboxSettings.forwarding.removeTitle')}
      confirm={t('inboxSettings.forwarding.removeConfirm')}
      danger
      action={remove}
    >
      <p>{t('inboxSettings.forwarding.removeBody', { address: channel.forwarding?.address ?? '' })}</p>
    </ConfirmAction>
  );
}
