import { useState, type ReactNode } from 'react';
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

/** What ConfirmAction runs: a mutation without variables (useMutation's result fits). */
export interface ConfirmableAction {
  mutate: (variables: undefined, options?: { onSuccess?: () => void }) => void;
  reset: () => void;
  isPending: boolean;
  error: unknown;
}

/**
 * A button that asks first: it opens a ConfirmDialog, the dialog runs the action and closes once it
 * succeeds; closing it forgets the action's error, so asking again starts clean.
 */
export function ConfirmAction({
  label,
  title,
  confirm,
  danger,
  action,
  children,
}: {
  /** The button's text. */
  label: string;
  title: string;
  confirm: string;
  /** A destructive action: the button and the dialog's confirmation are red. */
  danger?: boolean;
  action: ConfirmableAction;
  children: ReactNode;
}) {
  const [asking, setAsking] = useState(false);
  return (
    <>
      <Button variant={danger ? 'danger' : 'secondary'} onClick={() => setAsking(true)}>
        {label}
      </Button>
      {asking && (
        <ConfirmDialog
          title={title}
          confirm={confirm}
          danger={danger}
          pending={action.isPending}
          error={action.error}
          onConfirm={() => action.mutate(undefined, { onSuccess: () => setAsking(false) })}
          onClose={() => {
            setAsking(false);
            action.reset();
          }}
        >
          {children}
        </ConfirmDialog>
      )}
    </>
  );
}
