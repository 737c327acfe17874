import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { channelQuery, inboxKeys, type Channel } from '../../queries/inbox';
import { useCurrentWorkspace } from '../../queries/workspaces';
import { CheckboxField, EmptyState, ErrorAlert, ErrorState, Form, FormActions, LoadingState, useToast } from '../../ui';
import { CopyButton } from './copy';
import { Domains } from './domains';
import { Forwarding } from './forwarding';
import { InboundLog } from './inbound';
import '../workspaces/workspaces.css';
import './inbox.css';

/**
 * /settings/inbox (owners and admins): the email channel of the workspace chosen in the top bar:
 * on/off, forwarding from the support address (with its test), sending and receiving domains with
 * their DNS records, and the inbound log with quarantine release.
 */
export default function InboxSettingsPage() {
  const { t } = useTranslation();
  const { workspaceId } = useCurrentWorkspace();
  return (
    <div className="stack">
      <h1>{t('inboxSettings.title')}</h1>
      <p className="muted">{t('inboxSettings.intro')}</p>
      {workspaceId ? (
        <Sections key={workspaceId} workspaceId={workspaceId} />
      ) : (
        <EmptyState title={t('inboxSettings.noWorkspace')} />
      )}
    </div>
  );
}

function Sections({ workspaceId }: { workspaceId: string }) {
  const channel = useQuery(channelQuery(workspaceId));
  if (channel.isPending) return <LoadingState />;
  if (channel.isError) return <ErrorState error={channel.error} retry={() => void channel.refetch()} />;
  return (
    <>
      <ChannelSection channel={channel.data} />
      <Forwarding channel={channel.data} />
      <Domains channel={channel.data} />
      <InboundLog workspaceId={workspaceId} />
    </>
  );
}

/** The channel itself: its addresses, how replies leave, and the two switches. */
function ChannelSection({ channel }: { channel: Channel }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const [enabled, setEnabled] = useState(channel.enabled);
  const [listMail, setListMail] = useState(channel.accept_list_mail);
  const save = useMutation({
    mutationFn: () =>
      data(
        api.PATCH('/v1/channels/{workspaceId}', {
          params: { path: { workspaceId: channel.workspace_id } },
          body: { enabled, accept_list_mail: listMail },
        }),
      ),
    onSuccess: (c) => {
      client.setQueryData(inboxKeys.channel(c.workspace_id), c);
      toast.success(t('inboxSettings.channel.saved'));
    },
  });
  const s = channel.sending;
  const missing = s.missing.map((m) => t(`inboxSettings.channel.missingItems.${m}`, { defaultValue: m })).join(', ');
  const changed = enabled !== channel.enabled || listMail !== channel.accept_list_mail;
  return (
    <Form className="card stack" onSubmit={() => save.mutate()} aria-labelledby="inbox-channel">
      <div className="spread">
        <h2 id="inbox-channel">{t('inboxSettings.channel.title')}</h2>
        <span className={`inbox-status inbox-status-${channel.enabled ? 'on' : 'off'}`}>
          {channel.enabled ? t('inboxSettings.channel.on') : t('inboxSettings.channel.off')}
        </span>
      </div>
      {!channel.inbox_in_plan && (
        <div className="alert alert-warning" role="note">
          {t('inboxSettings.channel.notInPlan')}
        </div>
      )}
      <dl className="ws-facts">
        <dt>{t('inboxSettings.channel.address')}</dt>
        <dd>
          {channel.inbound_address ? (
            <span className="inbox-value">
              <code>{channel.inbound_address}</code>
              <CopyButton value={channel.inbound_address} label={t('inboxSettings.channel.copyAddress')} />
            </span>
          ) : (
            t('inboxSettings.none')
          )}
        </dd>
        {channel.white_label_address && (
          <>
            <dt>{t('inboxSettings.channel.whiteLabel')}</dt>
            <dd className="inbox-value">
              <code>{channel.white_label_address}</code>
            </dd>
          </>
        )}
        <dt>{t('inboxSettings.channel.sending')}</dt>
        <dd>
          <div>
            {t(`inboxSettings.channel.sendingKinds.${s.kind}`)}: <code>{s.from}</code>
          </div>
          {s.reply_to_example && (
            <div className="muted">{t('inboxSettings.channel.replyTo', { address: s.reply_to_example })}</div>
          )}
          {s.missing.length > 0 && (
            <div className="muted">{t('inboxSettings.channel.missing', { items: missing })}</div>
          )}
        </dd>
      </dl>
      <ErrorAlert error={save.error} fields={['enabled', 'accept_list_mail']} />
      <CheckboxField
        label={t('inboxSettings.channel.enabled')}
        checked={enabled}
        onChange={(e) => setEnabled(e.target.checked)}
      />
      <CheckboxField
        label={t('inboxSettings.channel.listMail')}
        checked={listMail}
        onChange={(e) => setListMail(e.target.checked)}
      />
      <FormActions submit={t('common.save')} disabled={!changed} pending={save.isPending} />
    </Form>
  );
}
