import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { isApiError } from '../../api/errors';
import type { Schema } from '../../api/types';
import { scoped, teamInvitationKeys, type Role } from '../../queries/team';
import { useMe } from '../../queries/session';
import {
  Button,
  ErrorAlert,
  Form,
  FormActions,
  KeysetTable,
  SelectField,
  TextField,
  fieldError,
  useFormat,
  useKeysetQuery,
  useToast,
  type Column,
} from '../../ui';
import { RoleSelect } from './role-select';
import { WorkspaceChecks } from './workspace-checks';

type Invitation = Schema<'Invitation'>;
type Status = Invitation['status'];
const STATUSES: Status[] = ['pending', 'accepted', 'revoked', 'expired'];

/** Invitations (owners and admins): send one, list them by status, revoke a pending one. */
export function Invitations() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const toast = useToast();
  const client = useQueryClient();
  const [status, setStatus] = useState<Status | ''>('pending');
  const query = useKeysetQuery<Invitation>(teamInvitationKeys.list(status), (cursor) =>
    data(api.GET('/v1/invitations', { params: { query: { cursor, ...(status ? { status } : {}) } } })),
  );
  const revoke = useMutation({
    mutationFn: (inv: Invitation) => data(api.DELETE('/v1/invitations/{id}', { params: { path: { id: inv.id } } })),
    onSuccess: (_r, inv) => {
      void client.invalidateQueries({ queryKey: teamInvitationKeys.all });
      toast.success(t('team.invitations.revoked', { email: inv.email }));
    },
    onError: (e) => toast.error(e),
  });
  const columns = useMemo<Column<Invitation>[]>(
    () => [
      { header: t('team.invitations.email'), cell: (i) => i.email },
      { header: t('team.members.role'), cell: (i) => t(`roles.${i.role}`) },
      {
        header: t('team.invitations.status'),
        cell: (i) => <span className="badge">{t(`team.invitations.statuses.${i.status}`)}</span>,
      },
      {
        header: t('team.invitations.invitedBy'),
        cell: (i) => (i.invited_by as Schema<'PersonRef'> | null)?.name ?? '',
      },
      { header: t('team.invitations.expires'), cell: (i) => fmt.dateTime(i.expires_at) },
      {
        header: t('team.members.actions'),
        hiddenHeader: true,
        cell: (i) =>
          i.status === 'pending' ? (
            <Button
              variant="danger"
              pending={revoke.isPending && revoke.variables?.id === i.id}
              onClick={() => revoke.mutate(i)}
              aria-label={t('team.invitations.revokeOf', { email: i.email })}
            >
              {t('team.invitations.revoke')}
            </Button>
          ) : null,
      },
    ],
    [t, fmt, revoke],
  );
  return (
    <section className="stack" aria-labelledby="team-invitations">
      <h2 id="team-invitations">{t('team.invitations.title')}</h2>
      <Invite />
      <div className="row">
        <SelectField
          label={t('team.invitations.status')}
          value={status}
          onChange={(e) => setStatus(e.target.value as Status | '')}
        >
          <option value="">{t('team.invitations.anyStatus')}</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {t(`team.invitations.statuses.${s}`)}
            </option>
          ))}
        </SelectField>
      </div>
      <KeysetTable
        caption={t('team.invitations.title')}
        columns={columns}
        query={query}
        rowKey={(i) => i.id}
        emptyTitle={t('team.invitations.empty')}
      />
    </section>
  );
}

function Invite() {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const me = useMe().data!;
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('reviewer');
  const [workspaces, setWorkspaces] = useState<string[]>([]);
  const invite = useMutation({
    mutationFn: () =>
      data(
        api.POST('/v1/invitations', {
          body: { email: email.trim(), role, ...(scoped(role) ? { workspace_ids: workspaces } : {}) },
        }),
      ),
    onSuccess: (inv) => {
      void client.invalidateQueries({ queryKey: teamInvitationKeys.all });
      toast.success(t('team.invitations.sent', { email: inv.email }));
      setEmail('');
      setWorkspaces([]);
    },
  });
  // 422 invalid_mail: the mail service refused the address; it belongs at the address field.
  const refused = isApiError(invite.error) && invite.error.code === 'invalid_mail' ? invite.error.message : undefined;
  return (
    <Form className="card stack" onSubmit={() => invite.mutate()} aria-labelledby="team-invite">
      <h3 id="team-invite">{t('team.invitations.send')}</h3>
      {!refused && <ErrorAlert error={invite.error} fields={['email', 'role', 'workspace_ids']} />}
      <div className="ws-fields">
        <TextField
          label={t('fields.email')}
          type="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={fieldError(invite.error, 'email') ?? refused}
        />
        <RoleSelect mine={me.user.role} value={role} onChange={setRole} error={fieldError(invite.error, 'role')} />
      </div>
      {scoped(role) && (
        <WorkspaceChecks
          legend={t('team.workspacesLegend')}
          value={workspaces}
          onChange={setWorkspaces}
          error={fieldError(invite.error, 'workspace_ids')}
        />
      )}
      <FormActions submit={t('team.invitations.submit')} pending={invite.isPending} />
    </Form>
  );
}
