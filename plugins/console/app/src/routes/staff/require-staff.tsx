import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useMe } from '../../queries/session';
import { EmptyState, LoadingState } from '../../ui';

/** The operator's pages: staff of the installation only (the API answers 403 to anyone else). */
export function RequireStaff({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const me = useMe();
  if (!me.data) return <LoadingState />;
  if (me.data.staff) return <>{children}</>;
  return (
    <EmptyState title={t('staff.notStaffTitle')}>
      <p>{t('staff.notStaff')}</p>
    </EmptyState>
  );
}
