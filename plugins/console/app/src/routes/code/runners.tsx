import { useState } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { isApiError } from '../../api/errors';
import type { Schema } from '../../api/types';
import { codeKeys } from '../../queries/code';
import {
  Button,
  ConfirmDialog,
  ErrorAlert,
  Form,
  Progress,
  SecretOnce,
  TextArea,
  TextField,
  fieldError,
  useFormat,
  useToast,
} from '../../ui';

type Runner = Schema<'Runner'>;
type DemoRun = Schema<'DemoRun'>;

/**
 * The workspace's own runners (POST /v1/runner/register): a new name registers one and shows its
 * token once; the same name again rotates it (the old token stops at once); revoking ends it.
 * The API has no list of runners, so the page keeps what this visit registered.
 */
export function Runners({ workspaceId }: { workspaceId: string }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const toast = useToast();
  const [name, setName] = useState('default');
  const [agentLogin, setAgentLogin] = useState('');
  const [shown, setShown] = useState<Runner | null>(null);
  const [done, setDone] = useState<Runner[]>([]);
  const [revoking, setRevoking] = useState(false);
  const register = useMutation({
    mutationFn: (revoke: boolean) =>
      data(
        api.POST('/v1/runner/register', {
          body: {
            workspace_id: workspaceId,
            name: name.trim() || 'default',
            revoke,
            ...(agentLogin.trim() && !revoke ? { agent_login: agentLogin } : {}),
          },
        }),
      ),
    onSuccess: (runner) => {
      // The token stays only in the dialog; the list keeps the rest.
      setDone((list) => [{ ...runner, token: null }, ...list.filter((r) => r.id !== runner.id)]);
      setAgentLogin('');
      if (runner.token) setShown(runner);
      else toast.success(t('code.runners.revoked', { name: runner.name }));
      setRevoking(false);
    },
  });
  const submit = () => {
    register.mutate(false);
  };
  return (
    <section className="card stack" aria-labelledby="code-runners">
      <h2 id="code-runners">{t('code.runners.title')}</h2>
      <p className="muted">{t('code.runners.intro')}</p>
      <Form className="stack" onSubmit={submit}>
        <div className="ws-fields">
          <TextField
            label={t('code.runners.name')}
            hint={t('code.runners.nameHint')}
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={fieldError(register.error, 'name')}
          />
          <TextArea
            label={t('code.runners.agentLogin')}
            hint={t('code.runners.agentLoginHint')}
            value={agentLogin}
            rows={3}
            onChange={(e) => setAgentLogin(e.target.value)}
            error={fieldError(register.error, 'agent_login')}
          />
        </div>
        {!revoking && <ErrorAlert error={register.error} fields={['name', 'agent_login']} />}
        <div className="row">
          <Button type="submit" variant="primary" pending={register.isPending && register.variables === false}>
            {t('code.runners.register')}
          </Button>
          <Button
            variant="danger"
            onClick={() => {
              register.reset();
              setRevoking(true);
            }}
          >
            {t('code.runners.revoke')}
          </Button>
        </div>
      </Form>
      {done.length > 0 && (
        <ul className="plain stack" aria-label={t('code.runners.thisVisit')}>
          {done.map((r) => (
            <li key={r.id}>
              <strong>{r.name}</strong> <code>{t('code.runners.endsWith', { last4: r.token_last4 })}</code>{' '}
              <span className="muted">
                {r.revoked_at
                  ? t('code.runners.revokedAt', { when: fmt.dateTime(r.revoked_at) })
                  : r.rotated_at
                    ? t('code.runners.rotatedAt', { when: fmt.dateTime(r.rotated_at) })
                    : t('code.runners.createdAt', { when: fmt.dateTime(r.created_at) })}
              </span>
            </li>
          ))}
        </ul>
      )}
      {shown?.token && (
        <SecretOnce
          secret={shown.token}
          onClose={() => setShown(null)}
          texts={{
            title: t(shown.rotated_at ? 'code.runners.rotatedTitle' : 'code.runners.createdTitle', {
              name: shown.name,
            }),
            label: t('code.runners.token'),
            warning: t('code.runners.warning'),
            copy: t('code.runners.copy'),
            copied: t('code.runners.copied'),
            failed: t('code.runners.copyFailed'),
            done: t('code.runners.done'),
          }}
        />
      )}
      {revoking && (
        <ConfirmDialog
          title={t('code.runners.revokeTitle', { name: name.trim() || 'default' })}
          confirm={t('code.runners.revoke')}
          danger
          pending={register.isPending}
          error={register.error}
          onConfirm={() => register.mutate(true)}
          onClose={() => setRevoking(false)}
        >
          <p>{t('code.runners.revokeBody')}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

const DEMO_POLL_MS = 2000;

/**
 * A test ticket through the workspace's own runner or agent (POST /v1/onboarding/demo/workspace),
 * followed until it is done (GET /v1/onboarding/demo), with a link to its ticket.
 */
export function TestTicket() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const demo = useQuery({
    queryKey: [...codeKeys.all, 'demo'],
    queryFn: async (): Promise<DemoRun | null> => {
      try {
        return await data(api.GET('/v1/onboarding/demo'));
      } catch (e) {
        if (isApiError(e) && e.status === 404) return null; // no demo yet
        throw e;
      }
    },
    refetchInterval: (q) => (q.state.data && !q.state.data.done ? DEMO_POLL_MS : false),
  });
  const start = useMutation({
    mutationFn: () => data(api.POST('/v1/onboarding/demo/workspace')),
    onSuccess: () => void client.invalidateQueries({ queryKey: [...codeKeys.all, 'demo'] }),
  });
  const run = demo.data?.mode === 'workspace' ? demo.data : null;
  const running = !!run && !run.done;
  return (
    <section className="card stack" aria-labelledby="code-test-ticket">
      <h2 id="code-test-ticket">{t('code.testTicket.title')}</h2>
      <p className="muted">{t('code.testTicket.intro')}</p>
      <ErrorAlert error={start.error} />
      {run && (
        <div className="stack" role="status">
          {running ? (
            <Progress label={t(`code.testTicket.phases.${run.phase}`)} />
          ) : (
            <p>
              {run.status === 'failed'
                ? t('code.testTicket.failed', { reason: run.error?.detail ?? run.error?.code ?? '' })
                : t(`code.testTicket.outcomes.${run.outcome ?? 'answer'}`)}
            </p>
          )}
          {run.ticket && (
            <p>
              <Link to={`/tickets/${run.ticket.id}`}>{t('code.testTicket.open')}</Link>
            </p>
          )}
        </div>
      )}
      <div>
        <Button variant="primary" pending={start.isPending} disabled={running} onClick={() => start.mutate()}>
          {t('code.testTicket.start')}
        </Button>
      </div>
    </section>
  );
}
