import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import {
  domainQuery,
  domainsQuery,
  inboxKeys,
  type Channel,
  type Domain,
  type DomainPurpose,
} from '../../queries/inbox';
import {
  Button,
  ConfirmAction,
  DataTable,
  ErrorAlert,
  Form,
  FormActions,
  QueryView,
  TextField,
  fieldError,
  useFormat,
  useToast,
  type Column,
} from '../../ui';
import { CopyButton } from './copy';

const PURPOSES: DomainPurpose[] = ['sending', 'receiving'];

/** Sending and receiving domains of the workspace's brand: register, the records to publish, live status, sender, delete. */
export function Domains({ channel }: { channel: Channel }) {
  const { t } = useTranslation();
  const domains = useQuery(domainsQuery(channel.workspace_id));
  return (
    <section className="card stack" aria-labelledby="inbox-domains">
      <h2 id="inbox-domains">{t('inboxSettings.domains.title')}</h2>
      <p className="muted">{t('inboxSettings.domains.intro')}</p>
      {!channel.custom_domain_in_plan && (
        <div className="alert alert-warning" role="note">
          {t('inboxSettings.domains.notInPlan')}
        </div>
      )}
      <QueryView query={domains}>
        {(list) =>
          PURPOSES.map((purpose) => {
            const d = list.items.find((x) => x.purpose === purpose);
            return d ? (
              <DomainCard key={purpose} initial={d} workspaceId={channel.workspace_id} />
            ) : (
              <RegisterDomain
                key={purpose}
                purpose={purpose}
                workspaceId={channel.workspace_id}
                disabled={!channel.custom_domain_in_plan}
              />
            );
          })
        }
      </QueryView>
    </section>
  );
}

/** After a change of a domain: the list, the channel (its sending section) and the domain itself. */
function useDomainChanged(workspaceId: string) {
  const client = useQueryClient();
  return (d: Domain | null) => {
    if (d) client.setQueryData(inboxKeys.domain(d.brand_profile_id, d.purpose), d);
    void client.invalidateQueries({ queryKey: inboxKeys.domains(workspaceId) });
    void client.invalidateQueries({ queryKey: inboxKeys.channel(workspaceId) });
  };
}

function RegisterDomain({
  purpose,
  workspaceId,
  disabled,
}: {
  purpose: DomainPurpose;
  workspaceId: string;
  disabled: boolean;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const changed = useDomainChanged(workspaceId);
  const [name, setName] = useState('');
  const register = useMutation({
    mutationFn: () =>
      data(api.POST('/v1/domains', { body: { workspace_id: workspaceId, purpose, domain: name.trim() } })),
    onSuccess: (d) => {
      changed(d);
      toast.success(t('inboxSettings.domains.registered', { name: d.name }));
    },
  });
  return (
    <Form className="stack inbox-item" onSubmit={() => register.mutate()} aria-labelledby={`domain-${purpose}`}>
      <h3 id={`domain-${purpose}`}>{t(`inboxSettings.domains.purposes.${purpose}`)}</h3>
      <p className="muted">{t(`inboxSettings.domains.purposeHints.${purpose}`)}</p>
      <ErrorAlert error={register.error} fields={['domain']} />
      <div className="ws-fields">
        <TextField
          label={t(`inboxSettings.domains.nameLabel.${purpose}`)}
          value={name}
          onChange={(e) => setName(e.target.value)}
          disabled={disabled}
          placeholder={purpose === 'sending' ? 'mail.example.com' : 'support.example.com'}
          error={fieldError(register.error, 'domain')}
        />
      </div>
      <FormActions
        submit={t('inboxSettings.domains.register')}
        disabled={disabled || !name.trim()}
        pending={register.isPending}
      />
    </Form>
  );
}

function DomainCard({ initial, workspaceId }: { initial: Domain; workspaceId: string }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const changed = useDomainChanged(workspaceId);
  // Read again (and refreshed from DNS by the service) every 5 s until it settles.
  const live = useQuery({ ...domainQuery(initial), initialData: initial });
  const d = live.data;
  const path = { brandProfileId: d.brand_profile_id, purpose: d.purpose };
  const verify = useMutation({
    mutationFn: () => data(api.POST('/v1/domains/{brandProfileId}/{purpose}/verify', { params: { path } })),
    onSuccess: changed,
  });
  const headingId = `domain-${d.purpose}`;
  const status = t(`inboxSettings.domains.statuses.${d.status}`);
  return (
    <div className="stack inbox-item" role="group" aria-labelledby={headingId}>
      <div className="spread">
        <h3 id={headingId}>
          {t(`inboxSettings.domains.purposes.${d.purpose}`)}: {d.name}
        </h3>
        <span
          className={`inbox-status inbox-status-${d.status}`}
          role="status"
          aria-label={t('inboxSettings.domains.statusOf', { name: d.name, status })}
        >
          {status}
        </span>
      </div>
      <dl className="ws-facts">
        <dt>{t('inboxSettings.domains.scope')}</dt>
        <dd>{t(`inboxSettings.domains.scopes.${d.scope}`)}</dd>
        <dt>{t('inboxSettings.domains.verifiedAt')}</dt>
        <dd>{fmt.dateTime(d.verified_at) || t('inboxSettings.domains.notYet')}</dd>
        <dt>{t('inboxSettings.domains.checkedAt')}</dt>
        <dd>{fmt.dateTime(d.last_checked_at) || t('inboxSettings.never')}</dd>
      </dl>
      {d.status !== 'verified' && <p>{t('inboxSettings.domains.publish')}</p>}
      <Records domain={d} />
      <ErrorAlert error={verify.error} />
      <div className="row">
        <Button pending={verify.isPending} onClick={() => verify.mutate()}>
          {t('inboxSettings.domains.verify')}
        </Button>
        <RemoveDomain domain={d} workspaceId={workspaceId} onRemoved={() => changed(null)} />
      </div>
      {d.purpose === 'sending' && <SenderForm domain={d} onSaved={changed} />}
    </div>
  );
}

type DnsRecord = Domain['records'][number];

/** The DNS records to publish, each host and value with its copy button. */
function Records({ domain }: { domain: Domain }) {
  const { t } = useTranslation();
  const label = (r: DnsRecord) =>
    r.record ? t(`inboxSettings.domains.recordNames.${r.record}`, { defaultValue: r.record }) : r.type;
  const copyable = (value: string, name: string) => (
    <span className="inbox-value">
      <code>{value}</code>
      <CopyButton value={value} label={name} />
    </span>
  );
  const columns: Column<DnsRecord>[] = [
    {
      header: t('inboxSettings.domains.record'),
      cell: (r) => (
        <>
          {label(r)}
          {!r.required && <div className="muted">{t('inboxSettings.domains.recommended')}</div>}
        </>
      ),
    },
    {
      header: t('inboxSettings.domains.type'),
      cell: (r) => (
        <>
          {r.type}
          {r.priority != null && (
            <div className="muted">{t('inboxSettings.domains.priority', { priority: r.priority })}</div>
          )}
        </>
      ),
    },
    {
      header: t('inboxSettings.domains.host'),
      cell: (r) => copyable(r.host, t('inboxSettings.domains.copyHost', { record: label(r) })),
    },
    {
      header: t('inboxSettings.domains.value'),
      cell: (r) => copyable(r.value, t('inboxSettings.domains.copyValue', { record: label(r) })),
    },
    {
      header: t('inboxSettings.domains.recordStatus'),
      cell: (r) =>
        r.status && (
          <span className={`inbox-status inbox-status-${r.status}`}>
            {t(`inboxSettings.domains.statuses.${r.status}`)}
          </span>
        ),
    },
  ];
  return (
    <DataTable
      caption={t('inboxSettings.domains.records', { name: domain.name })}
      columns={columns}
      rows={domain.records}
      rowKey={(r) => `${r.record ?? ''}-${r.type}-${r.name}`}
    />
  );
}

function SenderForm({ domain, onSaved }: { domain: Domain; onSaved: (d: Domain) => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const [email, setEmail] = useState(domain.sender_email ?? '');
  const [name, setName] = useState(domain.sender_name ?? '');
  const save = useMutation({
    mutationFn: () =>
      data(
        api.PATCH('/v1/domains/{brandProfileId}/{purpose}/sender', {
          params: { path: { brandProfileId: domain.brand_profile_id, purpose: domain.purpose } },
          body: { sender_email: email.trim() || null, sender_name: name.trim() || null },
        }),
      ),
    onSuccess: (d) => {
      onSaved(d);
      toast.success(t('inboxSettings.domains.senderSaved'));
    },
  });
  return (
    <Form className="stack" onSubmit={() => save.mutate()} aria-labelledby="domain-sender">
      <h4 id="domain-sender">{t('inboxSettings.domains.sender')}</h4>
      <ErrorAlert error={save.error} fields={['sender_email', 'sender_name']} />
      <div className="ws-fields">
        <TextField
          label={t('inboxSettings.domains.senderEmail')}
          type="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          hint={t('inboxSettings.domains.senderEmailHint', { name: domain.name })}
          error={fieldError(save.error, 'sender_email')}
        />
        <TextField
          label={t('inboxSettings.domains.senderName')}
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={fieldError(save.error, 'sender_name')}
        />
      </div>
      <FormActions submit={t('inboxSettings.domains.saveSender')} pending={save.isPending} />
    </Form>
  );
}

function RemoveDomain({
  domain,
  workspaceId,
  onRemoved,
}: {
  domain: Domain;
  workspaceId: string;
  onRemoved: () => void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () =>
      data(
        api.DELETE('/v1/domains/{brandProfileId}/{purpose}', {
          params: { path: { brandProfileId: domain.brand_profile_id, purpose: domain.purpose } },
        }),
      ),
    onSuccess: () => {
      // Out of the list first, so the card goes away before anything reads the deleted domain again.
      client.setQueryData(
        inboxKeys.domains(workspaceId),
        (old: { items: Domain[] } | undefined) =>
          old && { items: old.items.filter((x) => x.purpose !== domain.purpose) },
      );
      client.removeQueries({ queryKey: inboxKeys.domain(domain.brand_profile_id, domain.purpose) });
      onRemoved();
      toast.success(t('inboxSettings.domains.removed', { name: domain.name }));
    },
  });
  return (
    <ConfirmAction
      label={t('inboxSettings.domains.remove')}
      title={t('inboxSettings.domains.removeTitle', { name: domain.name })}
      confirm={t('inboxSettings.domains.removeConfirm')}
      danger
      action={remove}
    >
      <p>{t(`inboxSettings.domains.removeBody.${domain.purpose}`)}</p>
    </ConfirmAction>
  );
}
