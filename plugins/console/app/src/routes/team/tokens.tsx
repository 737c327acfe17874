import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { ResponseBody, Schema } from '../../api/types';
import { tokenKeys, type Role } from '../../queries/team';
import { useMe } from '../../queries/session';
import {
  Button,
  ConfirmDialog,
  ErrorAlert,
  Form,
  FormActions,
  KeysetTable,
  SecretOnce,
  TextField,
  fieldError,
  useFormat,
  useKeysetQuery,
  useToast,
  type Column,
} from '../../ui';
import { RoleSelect } from './role-select';
import { WorkspaceChecks } from './workspace-checks';
import '../workspaces/workspaces.css';

type Token = Schema<'ApiToken'>;
type Created = ResponseBody<'/v1/tokens', 'post'>;

/** /settings/tokens: API tokens. The secret is shown once, when created; the list knows only its last four characters. */
export default function Tokens() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const toast = useToast();
  const client = useQueryClient();
  const me = useMe().data!;
  const [created, setCreated] = useState<Created | null>(null);
  const [revoking, setRevoking] = useState<Token | null>(null);
  const query = useKeysetQuery<Token>(tokenKeys.list(), (cursor) =>
    data(api.GET('/v1/tokens', { params: { query: { cursor } } })),
  );
  const admin = me.user.role === 'owner' || me.user.role === 'admin';
  const revoke = useMutation({
    mutationFn: (tok: Token) => data(api.DELETE('/v1/tokens/{id}', { params: { path: { id: tok.id } } })),
    onSuccess: (_r, tok) => {
      void client.invalidateQueries({ queryKey: tokenKeys.all });
      toast.success(t('tokens.revoked', { name: tok.name }));
      setRevoking(null);
    },
  });
  const columns = useMemo<Column<Token>[]>(
    () => [
      {
        header: t('tokens.name'),
        cell: (k) => (
          <>
            <strong>{k.name}</strong>
            <div className="muted">{k.user.name}</div>
          </>
        ),
      },
      { header: t('tokens.secret'), cell: (k) => <code>{t('tokens.endsWith', { last4: k.last4 })}</code> },
      { header: t('team.members.role'), cell: (k) => t(`roles.${k.role}`) },
      {
        header: t('tokens.workspaces'),
        cell: (k) => (k.workspace_ids ? fmt.number(k.workspace_ids.length) : t('tokens.creatorWorkspaces')),
      },
      { header: t('tokens.expires'), cell: (k) => fmt.date(k.expires_at) },
      { header: t('tokens.lastUsed'), cell: (k) => fmt.dateTime(k.last_used_at) || t('team.members.never') },
      {
        header: t('team.members.actions'),
        hiddenHeader: true,
        cell: (k) =>
          admin || k.user.id === me.user.id ? (
            <Button variant="danger" onClick={() => setRevoking(k)} aria-label={t('tokens.revokeOf', { name: k.name })}>
              {t('tokens.revoke')}
            </Button>
          ) : null,
      },
    ],
    [t, fmt, admin, me.user.id],
  );
  return (
    <div className="stack">
      <h1>{t('tokens.title')}</h1>
      <p className="muted">{t('tokens.intro')}</p>
      <CreateToken role={me.user.role} onCreated={setCreated} />
      <section className="stack" aria-labelledby="tokens-list">
        <h2 id="tokens-list">{t('tokens.listTitle')}</h2>
        <KeysetTable
          caption={t('tokens.listTitle')}
          columns={columns}
          query={query}
          rowKey={(k) => k.id}
          emptyTitle={t('tokens.empty')}
        />
      </section>
      {created && <ShownOnce token={created} onClose={() => setCreated(null)} />}
      {revoking && (
        <ConfirmDialog
          title={t('tokens.revokeTitle', { name: revoking.name })}
          confirm={t('tokens.revokeConfirm')}
          danger
          pending={revoke.isPending}
          error={revoke.error}
          onConfirm={() => revoke.mutate(revoking)}
          onClose={() => {
            setRevoking(null);
            revoke.reset();
          }}
        >
          <p>{t('tokens.revokeBody')}</p>
        </ConfirmDialog>
      )}
    </div>
  );
}

function CreateToken({ role: mine, onCreated }: { role: Role; onCreated: (c: Created) => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>(mine);
  const [workspaces, setWorkspaces] = useState<string[]>([]);
  const [expires, setExpires] = useState('');
  const create = useMutation({
    mutationFn: () =>
      data(
        api.POST('/v1/tokens', {
          body: {
            name: name.trim(),
            role,
            // None chosen: the token opens the creator's workspaces (null), as the API defines.
            ...(workspaces.length ? { workspace_ids: workspaces } : {}),
            // A day chosen in the person's calendar: valid until that day's end, in their time zone.
            ...(expires ? { expires_at: new Date(`${expires}T23:59:59`).toISOString() } : {}),
          },
        }),
      ),
    onSuccess: (c) => {
      void client.invalidateQueries({ queryKey: tokenKeys.all });
      setName('');
      setWorkspaces([]);
      setExpires('');
      onCreated(c);
    },
  });
  return (
    <Form className="card stack" onSubmit={() => create.mutate()} aria-labelledby="tokens-create">
      <h2 id="tokens-create">{t('tokens.create')}</h2>
      <ErrorAlert error={create.error} fields={['name', 'role', 'workspace_ids', 'expires_at']} />
      <div className="ws-fields">
        <TextField
          label={t('tokens.name')}
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={fieldError(create.error, 'name')}
        />
        <RoleSelect
          mine={mine}
          hint={t('tokens.roleHint')}
          value={role}
          onChange={setRole}
          error={fieldError(create.error, 'role')}
        />
        <TextField
          label={t('tokens.expires')}
          hint={t('tokens.expiresHint')}
          type="date"
          value={expires}
          onChange={(e) => setExpires(e.target.value)}
          error={fieldError(create.error, 'expires_at')}
        />
      </div>
      <WorkspaceChecks
        legend={t('tokens.workspaces')}
        hint={t('tokens.workspacesHint')}
        value={workspaces}
        onChange={setWorkspaces}
        error={fieldError(create.error, 'workspace_ids')}
      />
      <FormActions submit={t('tokens.submit')} pending={create.isPending} />
    </Form>
  );
}

/** The new token's secret, once: copy it now; closing the dialog forgets it. */
function ShownOnce({ token, onClose }: { token: Created; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <SecretOnce
      secret={token.token}
      onClose={onClose}
      texts={{
        title: t('tokens.createdTitle', { name: token.name }),
        label: t('tokens.secret'),
        warning: t('tokens.onceWarning'),
        copy: t('tokens.copy'),
        copied: t('tokens.copied'),
        failed: t('tokens.copyFailed'),
        done: t('tokens.done'),
      }}
    />
  );
}
