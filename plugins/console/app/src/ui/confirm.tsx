import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from './button';
import { Dialog } from './dialog';
import { ErrorAlert } from './errors';

/**
 * "Are you sure?" before an action that cannot be taken back: what happens, the action's error
 * if it fails, the action and Cancel (focused first, so Enter does not confirm by accident).
 */
export function ConfirmDialog({
  title,
  children,
  confirm,
  danger,
  pending,
  error,
  onConfirm,
  onClose,
}: {
  title: string;
  children: ReactNode;
  confirm: string;
  danger?: boolean;
  pending: boolean;
  error: unknown;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Dialog open title={title} onClose={onClose}>
      <div className="stack">
        {children}
        <ErrorAlert error={error} />
        <div className="row">
          <Button variant={danger ? 'danger' : 'primary'} pending={pending} onClick={onConfirm}>
            {confirm}
          </Button>
          <Button onClick={onClose} autoFocus>
            {t('common.cancel')}
          </Button>
        </div>
      </div>
    </Dialog>
  );
}
