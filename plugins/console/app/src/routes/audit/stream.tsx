import { useState } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { isApiError } from '../../api/errors';
import type { RequestBody } from '../../api/types';
import { auditKeys, auditStreamQuery, withoutSecret, type AuditStream } from '../../queries/audit';
import {
  Button,
  CheckboxField,
  ConfirmAction,
  ErrorAlert,
  Form,
  FormActions,
  QueryView,
  SecretOnce,
  SelectField,
  TextField,
  fieldError,
  useFormat,
  useToast,
} from '../../ui';
import '../workspaces/workspaces.css';
import './audit.css';

type Kind = AuditStream['kind'];
type Body = RequestBody<'/v1/audit/stream', 'put'>;

/**
 * /audit/stream (owners and admins): the stream of the audit log to an external log system
 * (Enterprise). Configure it, send a signed test batch, rotate the signing secret (shown once),
 * delete it. The cache never holds a secret.
 */
export default function AuditStreamPage() {
  const { t } = useTranslation();
  const stream = useQuery(auditStreamQuery());
  const [secret, setSecret] = useState<string | null>(null);
  const client = useQueryClient();
  // An answer that carries the secret: show it once, keep the rest as the new state.
  const took = (s: AuditStream) => {
    client.setQueryData(auditKeys.stream(), withoutSecret(s));
    if (s.secret) setSecret(s.secret);
  };
  return (
    <div className="stack">
      <div className="spread">
        <h1>{t('audit.stream.title')}</h1>
        <Link className="btn" to="/audit">
          {t('audit.stream.back')}
        </Link>
      </div>
      <p className="muted">{t('audit.stream.intro')}</p>
      <QueryView query={stream}>
        {(current) => (
          <>
            {current && <State stream={current} onRotated={took} />}
            <StreamForm key={current?.id ?? 'new'} stream={current} onSaved={took} />
          </>
        )}
      </QueryView>
      {secret && (
        <SecretOnce
          secret={secret}
          onClose={() => setSecret(null)}
          texts={{
            title: t('audit.stream.secretTitle'),
            label: t('audit.stream.secret'),
            warning: t('audit.stream.secretWarning'),
            copy: t('audit.stream.copy'),
            copied: t('audit.stream.copied'),
            failed: t('audit.stream.copyFailed'),
            done: t('tokens.done'),
          }}
        />
      )}
    </div>
  );
}

/** Where the stream stands: delivery state, the signature header and secret's last four, and its actions. */
function State({ stream, onRotated }: { stream: AuditStream; onRotated: (s: AuditStream) => void }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const d = stream.delivery;
  const cw = stream.cloudwatch;
  return (
    <section className="card stack" aria-labelledby="stream-state">
      <div className="spread">
        <h2 id="stream-state">{t('audit.stream.state')}</h2>
        <span className={`audit-status audit-status-${stream.status}`}>
          {t(`audit.stream.statuses.${stream.status}`)}
        </span>
      </div>
      <dl className="ws-facts">
        <dt>{t('audit.stream.destination')}</dt>
        <dd>
          {stream.kind === 'https' ? stream.url : `CloudWatch · ${cw?.region} · ${cw?.log_group}/${cw?.log_stream}`}
        </dd>
        <dt>{t('audit.stream.secret')}</dt>
        <dd>
          <code>{t('tokens.endsWith', { last4: stream.secret_last4 })}</code>
        </dd>
        <dt>{t('audit.stream.signatureHeader')}</dt>
        <dd>
          <code>{stream.signature_header}</code>
        </dd>
        <dt>{t('audit.stream.delivered')}</dt>
        <dd>{fmt.number(d.delivered)}</dd>
        <dt>{t('audit.stream.pending')}</dt>
        <dd>{fmt.number(d.pending)}</dd>
        <dt>{t('audit.stream.lastDelivered')}</dt>
        <dd>{fmt.dateTime(d.last_delivered_at) || t('audit.stream.never')}</dd>
        {d.last_error && (
          <>
            <dt>{t('audit.stream.lastError')}</dt>
            <dd>{d.last_error}</dd>
          </>
        )}
        {d.consecutive_failures > 0 && (
          <>
            <dt>{t('audit.stream.failures')}</dt>
            <dd>{fmt.number(d.consecutive_failures)}</dd>
          </>
        )}
        {d.next_attempt_at && (
          <>
            <dt>{t('audit.stream.nextAttempt')}</dt>
            <dd>{fmt.dateTime(d.next_attempt_at)}</dd>
          </>
        )}
      </dl>
      <TestBatch />
      <div className="row">
        <Rotate onRotated={onRotated} />
        <Remove />
      </div>
    </section>
  );
}

function TestBatch() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const test = useMutation({ mutationFn: () => data(api.POST('/v1/audit/stream/test')) });
  const r = test.data;
  return (
    <div className="stack">
      <div>
        <Button variant="primary" pending={test.isPending} onClick={() => test.mutate()}>
          {t('audit.stream.test')}
        </Button>
      </div>
      <ErrorAlert error={test.error} />
      {r && !test.isPending && (
        <div className={`alert ${r.ok ? 'alert-success' : 'alert-error'}`} role="status">
          <strong>{r.ok ? t('audit.stream.testOk') : t('audit.stream.testFailed')}</strong>
          <div>
            {[
              r.status != null && t('audit.stream.testStatus', { status: r.status }),
              t('audit.stream.testLatency', { ms: fmt.number(r.latency_ms) }),
            ]
              .filter(Boolean)
              .join(' · ')}
          </div>
          {r.error && <div>{r.error}</div>}
          <div className="muted">{t('audit.stream.testBatch', { id: r.batch_id })}</div>
        </div>
      )}
    </div>
  );
}

function Rotate({ onRotated }: { onRotated: (s: AuditStream) => void }) {
  const { t } = useTranslation();
  const rotate = useMutation({
    mutationFn: () => data(api.POST('/v1/audit/stream/rotate-secret')),
    onSuccess: onRotated,
  });
  return (
    <ConfirmAction
      label={t('audit.stream.rotate')}
      title={t('audit.stream.rotateTitle')}
      confirm={t('audit.stream.rotateConfirm')}
      action={rotate}
    >
      <p>{t('audit.stream.rotateBody')}</p>
    </ConfirmAction>
  );
}

function Remove() {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => data(api.DELETE('/v1/audit/stream')),
    onSuccess: () => {
      client.setQueryData(auditKeys.stream(), null);
      toast.success(t('audit.stream.deleted'));
    },
  });
  return (
    <ConfirmAction
      label={t('audit.stream.delete')}
      title={t('audit.stream.deleteTitle')}
      confirm={t('audit.stream.deleteConfirm')}
      danger
      action={remove}
    >
      <p>{t('audit.stream.deleteBody')}</p>
    </ConfirmAction>
  );
}

type Cloudwatch = NonNullable<Body['cloudwatch']>;
const CW_FIELDS = ['region', 'log_group', 'log_stream', 'access_key_id'] as const;

/** Create or change the stream: an HTTPS collector's URL, or CloudWatch Logs (its secret key write-only). */
function StreamForm({ stream, onSaved }: { stream: AuditStream | null; onSaved: (s: AuditStream) => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const [kind, setKind] = useState<Kind>(stream?.kind ?? 'https');
  const [enabled, setEnabled] = useState(stream?.enabled ?? true);
  const [url, setUrl] = useState(stream?.url ?? '');
  const [cw, setCw] = useState<Cloudwatch>({
    region: stream?.cloudwatch?.region ?? '',
    log_group: stream?.cloudwatch?.log_group ?? '',
    log_stream: stream?.cloudwatch?.log_stream ?? '',
    access_key_id: stream?.cloudwatch?.access_key_id ?? '',
    secret_access_key: '',
  });
  const save = useMutation({
    mutationFn: () => {
      const { secret_access_key, ...rest } = cw;
      // The secret key is write-only: left blank, the stored one stays.
      const body: Body =
        kind === 'https'
          ? { kind, enabled, url: url.trim() }
          : { kind, enabled, cloudwatch: secret_access_key ? cw : rest };
      return data(api.PUT('/v1/audit/stream', { body }));
    },
    onSuccess: (s) => {
      toast.success(t('audit.stream.saved'));
      onSaved(s);
    },
  });
  const cwError = (f: string) => fieldError(save.error, `cloudwatch.${f}`);
  const blocked = isApiError(save.error) && save.error.code === 'blocked_address';
  return (
    <Form className="card stack" onSubmit={() => save.mutate()} aria-labelledby="stream-settings">
      <h2 id="stream-settings">{stream ? t('audit.stream.change') : t('audit.stream.create')}</h2>
      {!stream && <p className="muted">{t('audit.stream.none')}</p>}
      <ErrorAlert
        error={save.error}
        fields={['kind', 'url', 'enabled', ...CW_FIELDS.map((f) => `cloudwatch.${f}`), 'cloudwatch.secret_access_key']}
      />
      <div className="ws-fields">
        <SelectField
          label={t('audit.stream.kind')}
          value={kind}
          onChange={(e) => setKind(e.target.value as Kind)}
          error={fieldError(save.error, 'kind')}
        >
          <option value="https">{t('audit.stream.kinds.https')}</option>
          <option value="cloudwatch">{t('audit.stream.kinds.cloudwatch')}</option>
        </SelectField>
        {kind === 'https' ? (
          <TextField
            label={t('audit.stream.url')}
            hint={t('audit.stream.urlHint')}
            type="url"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            error={fieldError(save.error, 'url') ?? (blocked ? t('audit.stream.blocked') : undefined)}
          />
        ) : (
          <>
            {CW_FIELDS.map((f) => (
              <TextField
                key={f}
                label={t(`audit.stream.cloudwatch.${f}`)}
                value={cw[f]}
                error={cwError(f)}
                onChange={(e) => setCw({ ...cw, [f]: e.target.value })}
              />
            ))}
            <TextField
              label={t('audit.stream.cloudwatch.secret_access_key')}
              type="password"
              autoComplete="off"
              value={cw.secret_access_key ?? ''}
              hint={
                stream?.cloudwatch
                  ? t('audit.stream.cloudwatch.keepSecret', { last4: stream.cloudwatch.secret_access_key_last4 })
                  : undefined
              }
              onChange={(e) => setCw({ ...cw, secret_access_key: e.target.value })}
              error={cwError('secret_access_key')}
            />
          </>
        )}
      </div>
      <CheckboxField
        label={t('audit.stream.enabled')}
        checked={enabled}
        onChange={(e) => setEnabled(e.target.checked)}
      />
      <FormActions submit={stream ? t('common.save') : t('audit.stream.createSubmit')} pending={save.isPending} />
    </Form>
  );
}
