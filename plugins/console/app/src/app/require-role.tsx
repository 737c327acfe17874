import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Schema } from '../api/types';
import { useMe } from '../queries/session';
import { EmptyState, LoadingState } from '../ui';

type Role = Schema<'User'>['role'];

/**
 * A page of some roles only (the spec's route roles): others get an explanation instead of
 * actions they cannot use. The API refuses them anyway; this keeps the buttons away.
 */
export function RequireRole({ roles, children }: { roles: Role[]; children: ReactNode }) {
  const { t } = useTranslation();
  const me = useMe();
  if (!me.data) return <LoadingState />;
  if (roles.includes(me.data.user.role)) return <>{children}</>;
  return (
    <EmptyState title={t('roles.notAllowedTitle')}>
      <p>{t('roles.notAllowed', { roles: roles.map((r) => t(`roles.${r}`)).join(', ') })}</p>
    </EmptyState>
  );
}
