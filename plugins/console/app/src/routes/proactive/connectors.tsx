import { Fragment, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { connectorsQuery, proactiveKeys, type Connector } from '../../queries/proactive';
import { Button, ConfirmAction, CopyValue, QueryView, SecretOnce, useFormat, useToast } from '../../ui';
import { ActionError, copyTexts } from './parts';
import { CreateConnector, EditConnector } from './connector-forms';

/** Connectors of the workspace: how errors reach the service (a push endpoint, a tracker, a logs platform, CloudWatch). */
export function Connectors({ workspaceId, canChange }: { workspaceId: string; canChange: boolean }) {
  const { t } = useTranslation();
  const list = useQuery(connectorsQuery(workspaceId));
  const [token, setToken] = useState<string | null>(null);
  return (
    <div className="stack">
      <p className="muted">{t('proactive.connectors.intro')}</p>
      <QueryView query={list}>
        {(page) =>
          page.items.length === 0 ? (
            <p>{t('proactive.connectors.none')}</p>
          ) : (
            page.items.map((c) => <ConnectorCard key={c.id} connector={c} canChange={canChange} onToken={setToken} />)
          )
        }
      </QueryView>
      {canChange && <CreateConnector workspaceId={workspaceId} onToken={setToken} />}
      {token && (
        <SecretOnce
          secret={token}
          onClose={() => setToken(null)}
          texts={{
            title: t('proactive.connectors.tokenTitle'),
            label: t('proactive.connectors.token'),
            warning: t('proactive.connectors.tokenWarning'),
            copy: t('proactive.copy'),
            copied: t('proactive.copied'),
            failed: t('proactive.copyFailed'),
            done: t('proactive.done'),
          }}
        />
      )}
    </div>
  );
}

function ConnectorCard({
  connector: c,
  canChange,
  onToken,
}: {
  connector: Connector;
  canChange: boolean;
  onToken: (token: string) => void;
}) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const toast = useToast();
  const client = useQueryClient();
  const [editing, setEditing] = useState(false);
  const put = (next: Connector) =>
    client.setQueryData(
      proactiveKeys.connectors(c.workspace_id),
      (old: { items: Connector[] } | undefined) =>
        old && { items: old.items.map((x) => (x.id === next.id ? next : x)) },
    );
  const path = { params: { path: { id: c.id } } };
  const test = useMutation({
    mutationFn: () => data(api.POST('/v1/connectors/{id}/test', path)),
    onSuccess: (r) => {
      if (r.connector) put(r.connector);
    },
  });
  const pause = useMutation({
    mutationFn: () =>
      c.status === 'paused'
        ? data(api.POST('/v1/connectors/{id}/resume', path))
        : data(api.POST('/v1/connectors/{id}/pause', path)),
    onSuccess: (next) => {
      put(next);
      toast.success(next.status === 'paused' ? t('proactive.connectors.paused') : t('proactive.connectors.resumed'));
    },
  });
  const rotate = useMutation({
    mutationFn: () => data(api.POST('/v1/connectors/{id}/rotate-token', path)),
    onSuccess: (r) => {
      if (r.connector) put(r.connector);
      if (r.token) onToken(r.token);
    },
  });
  const remove = useMutation({
    mutationFn: () => data(api.DELETE('/v1/connectors/{id}', path)),
    onSuccess: () => {
      toast.success(t('proactive.connectors.deleted'));
      void client.invalidateQueries({ queryKey: proactiveKeys.connectors(c.workspace_id) });
    },
  });
  const headingId = `pa-connector-${c.id}`;
  const r = test.data;
  return (
    <section className="card stack" aria-labelledby={headingId}>
      <div className="spread">
        <h3 id={headingId}>
          {c.name} <span className="muted">· {t(`proactive.kinds.${c.kind}`)}</span>
        </h3>
        <span className={`badge pa-status pa-connector-${c.status}`}>
          {t(`proactive.connectors.statuses.${c.status}`)}
        </span>
      </div>
      <dl className="pa-facts">
        <dt>{t('proactive.connectors.events24h')}</dt>
        <dd>{fmt.number(c.events_24h)}</dd>
        <dt>{t('proactive.connectors.lastActivity')}</dt>
        <dd>{fmt.dateTime(c.last_activity_at) || t('proactive.connectors.never')}</dd>
        {c.polls && c.next_poll_at && (
          <>
            <dt>{t('proactive.connectors.nextPoll')}</dt>
            <dd>{fmt.dateTime(c.next_poll_at)}</dd>
          </>
        )}
        {c.last_error && (
          <>
            <dt>{t('proactive.connectors.lastError')}</dt>
            <dd>
              {c.last_error} {c.last_error_code && <code>({c.last_error_code})</code>}
            </dd>
          </>
        )}
        {c.key_id && (
          <>
            <dt>{t('proactive.connectors.keyId')}</dt>
            <dd>
              <code>{c.key_id}</code>
            </dd>
          </>
        )}
        {c.secrets.map((s) => (
          <Fragment key={s.name}>
            <dt>{t(`proactive.fields.${s.name}`)}</dt>
            <dd>
              <code>{t('proactive.endsWith', { last4: s.last4 })}</code>
            </dd>
          </Fragment>
        ))}
        {Object.entries(c.config).map(([k, v]) => (
          <Fragment key={k}>
            <dt>{t(`proactive.fields.${k}`, { defaultValue: k })}</dt>
            <dd>{String(v)}</dd>
          </Fragment>
        ))}
      </dl>
      {c.ingest_url && (
        <CopyValue
          value={c.ingest_url}
          label={t('proactive.connectors.ingestUrl')}
          action={t('proactive.connectors.copyIngest')}
          texts={copyTexts(t)}
        />
      )}
      {c.dsn && (
        <CopyValue
          value={c.dsn}
          label={t('proactive.connectors.dsn')}
          action={t('proactive.connectors.copyDsn')}
          texts={copyTexts(t)}
        />
      )}
      {c.webhook_url && (
        <CopyValue
          value={c.webhook_url}
          label={t('proactive.connectors.webhookUrl')}
          action={t('proactive.connectors.copyWebhook')}
          texts={copyTexts(t)}
        />
      )}
      {canChange && (
        <div className="row">
          <Button pending={test.isPending} onClick={() => test.mutate()}>
            {t('proactive.connectors.test')}
          </Button>
          <Button pending={pause.isPending} onClick={() => pause.mutate()}>
            {c.status === 'paused' ? t('proactive.connectors.resume') : t('proactive.connectors.pause')}
          </Button>
          {c.kind === 'endpoint' && (
            <ConfirmAction
              label={t('proactive.connectors.rotate')}
              title={t('proactive.connectors.rotateTitle')}
              confirm={t('proactive.connectors.rotateConfirm')}
              action={rotate}
            >
              <p>{t('proactive.connectors.rotateBody')}</p>
            </ConfirmAction>
          )}
          {c.kind !== 'endpoint' && <Button onClick={() => setEditing(true)}>{t('proactive.connectors.edit')}</Button>}
          <ConfirmAction
            label={t('proactive.connectors.delete')}
            title={t('proactive.connectors.deleteTitle', { name: c.name })}
            confirm={t('proactive.connectors.deleteConfirm')}
            danger
            action={remove}
          >
            <p>{t('proactive.connectors.deleteBody')}</p>
          </ConfirmAction>
        </div>
      )}
      <ActionError error={test.error ?? pause.error} />
      {r && !test.isPending && (
        <div
          className={`alert ${r.ok === true ? 'alert-success' : r.ok === false ? 'alert-error' : 'alert-info'}`}
          role="status"
        >
          <strong>
            {r.ok === true
              ? t('proactive.connectors.testOk')
              : r.ok === false
                ? t('proactive.connectors.testFailed')
                : t('proactive.connectors.testNothing')}
          </strong>
          <div>{t(`proactive.connectors.testCodes.${r.code}`, { defaultValue: r.message })}</div>
          {typeof r.details.last_delivery_at === 'string' && (
            <div>{t('proactive.connectors.lastDelivery', { at: fmt.dateTime(r.details.last_delivery_at) })}</div>
          )}
          <div className="code">{t('proactive.connectors.code', { code: r.code })}</div>
        </div>
      )}
      {editing && (
        <EditConnector
          connector={c}
          onClose={() => setEditing(false)}
          onSaved={(next) => {
            put(next);
            setEditing(false);
          }}
        />
      )}
    </section>
  );
}
