import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { Schema } from '../../api/types';
import { memberKeys, scoped, type Role } from '../../queries/team';
import { useMe, type AuthContext } from '../../queries/session';
import {
  Button,
  ConfirmDialog,
  Dialog,
  ErrorAlert,
  KeysetTable,
  fieldError,
  useFormat,
  useKeysetQuery,
  useToast,
  type Column,
} from '../../ui';
import { RoleSelect } from './role-select';
import { WorkspaceChecks } from './workspace-checks';

type Member = Schema<'User'>;

/**
 * The organization's members. Owners and admins change roles and remove people; only owners
 * touch owners (the API refuses the rest, and the last owner with 409 last_owner).
 */
export function Members() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const me = useMe().data!;
  const [editing, setEditing] = useState<Member | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const query = useKeysetQuery<Member>(memberKeys.page(), (cursor) =>
    data(api.GET('/v1/members', { params: { query: { cursor } } })),
  );
  const manage = canManage(me);
  const columns = useMemo<Column<Member>[]>(
    () => [
      {
        header: t('team.members.name'),
        cell: (m) => (
          <>
            <strong>{m.name}</strong>
            <div className="muted">{m.email}</div>
          </>
        ),
      },
      { header: t('team.members.role'), cell: (m) => t(`roles.${m.role}`) },
      {
        header: t('team.members.workspaces'),
        cell: (m) => (scoped(m.role) ? fmt.number(m.workspace_ids.length) : t('team.members.allWorkspaces')),
      },
      {
        header: t('team.members.lastLogin'),
        cell: (m) =>
          m.disabled_at ? t('team.members.disabled') : fmt.dateTime(m.last_login_at) || t('team.members.never'),
      },
      {
        header: t('team.members.actions'),
        hiddenHeader: true,
        cell: (m) =>
          manage(m) ? (
            <div className="row">
              <Button onClick={() => setEditing(m)} aria-label={t('team.members.editOf', { name: m.name })}>
                {t('team.members.edit')}
              </Button>
              <Button
                variant="danger"
                onClick={() => setRemoving(m)}
                aria-label={t('team.members.removeOf', { name: m.name })}
              >
                {t('team.members.remove')}
              </Button>
            </div>
          ) : null,
      },
    ],
    [t, fmt, manage],
  );
  return (
    <section className="stack" aria-labelledby="team-members">
      <h2 id="team-members">{t('team.members.title')}</h2>
      <KeysetTable
        caption={t('team.members.title')}
        columns={columns}
        query={query}
        rowKey={(m) => m.id}
        emptyTitle={t('team.members.empty')}
      />
      {editing && <EditMember member={editing} me={me} onClose={() => setEditing(null)} />}
      {removing && <RemoveMember member={removing} onClose={() => setRemoving(null)} />}
    </section>
  );
}

/** Who the signed-in person may change: owners anyone but themselves; admins non-owners but themselves. */
function canManage(me: AuthContext) {
  return (m: Member) =>
    m.id !== me.user.id && (me.user.role === 'owner' || (me.user.role === 'admin' && m.role !== 'owner'));
}

function EditMember({ member, me, onClose }: { member: Member; me: AuthContext; onClose: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const [role, setRole] = useState<Role>(member.role);
  const [workspaces, setWorkspaces] = useState(member.workspace_ids);
  const save = useMutation({
    mutationFn: () =>
      data(
        api.PATCH('/v1/members/{id}', {
          params: { path: { id: member.id } },
          body: scoped(role) ? { role, workspace_ids: workspaces } : { role },
        }),
      ),
    onSuccess: (m) => {
      void client.invalidateQueries({ queryKey: memberKeys.all });
      toast.success(t('team.members.saved', { name: m.name, role: t(`roles.${m.role}`) }));
      onClose();
    },
  });
  return (
    <Dialog open title={t('team.members.editTitle', { name: member.name })} onClose={onClose}>
      <div className="stack">
        <ErrorAlert error={save.error} fields={['role', 'workspace_ids']} />
        <RoleSelect mine={me.user.role} value={role} onChange={setRole} error={fieldError(save.error, 'role')} />
        {scoped(role) && (
          <WorkspaceChecks
            legend={t('team.workspacesLegend')}
            value={workspaces}
            onChange={setWorkspaces}
            error={fieldError(save.error, 'workspace_ids')}
          />
        )}
        <div className="row">
          <Button variant="primary" pending={save.isPending} onClick={() => save.mutate()}>
            {t('common.save')}
          </Button>
          <Button onClick={onClose}>{t('common.cancel')}</Button>
        </div>
      </div>
    </Dialog>
  );
}

function RemoveMember({ member, onClose }: { member: Member; onClose: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => data(api.DELETE('/v1/members/{id}', { params: { path: { id: member.id } } })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: memberKeys.all });
      toast.success(t('team.members.removed', { name: member.name }));
      onClose();
    },
  });
  return (
    <ConfirmDialog
      title={t('team.members.removeTitle', { name: member.name })}
      confirm={t('team.members.removeConfirm')}
      danger
      pending={remove.isPending}
      error={remove.error}
      onConfirm={() => remove.mutate()}
      onClose={onClose}
    >
      <p>{t('team.members.removeBody', { email: member.email })}</p>
    </ConfirmDialog>
  );
}
