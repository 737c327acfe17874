import type { FormHTMLAttributes, ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, type ButtonProps } from './button';
import { Dialog } from './dialog';

/**
 * A form of the console: the API checks the fields (so no browser validation), and submitting runs
 * `onSubmit` (usually a mutation) instead of loading a page.
 */
export function Form({
  onSubmit,
  children,
  ...rest
}: Omit<FormHTMLAttributes<HTMLFormElement>, 'onSubmit'> & { onSubmit: () => void }) {
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
      {...rest}
    >
      {children}
    </form>
  );
}

interface SubmitProps {
  /** The submit button's text. */
  submit: string;
  pending: boolean;
  variant?: ButtonProps['variant'];
  disabled?: boolean;
  autoFocus?: boolean;
}

/** The end of a form: its submit button, and Cancel where the form can be left unsent. */
export function FormActions({
  submit,
  pending,
  variant = 'primary',
  disabled,
  autoFocus,
  onCancel,
}: SubmitProps & { onCancel?: () => void }) {
  const { t } = useTranslation();
  // One button sits in a plain block; two in a row with a gap.
  return (
    <div className={onCancel ? 'row' : undefined}>
      <Button type="submit" variant={variant} pending={pending} disabled={disabled} autoFocus={autoFocus}>
        {submit}
      </Button>
      {onCancel && <Button onClick={onCancel}>{t('common.cancel')}</Button>}
    </div>
  );
}

/**
 * A small form in a dialog (a reason, a comment, a price): its fields, then the submit button and
 * Cancel, which closes the dialog. Enter submits; the page's action runs in `onSubmit`.
 */
export function FormDialog({
  open = true,
  title,
  onClose,
  onSubmit,
  children,
  ...actions
}: SubmitProps & {
  open?: boolean;
  title: string;
  onClose: () => void;
  onSubmit: () => void;
  children: ReactNode;
}) {
  return (
    <Dialog open={open} title={title} onClose={onClose}>
      <Form className="stack" onSubmit={onSubmit}>
        {children}
        <FormActions {...actions} onCancel={onClose} />
      </Form>
    </Dialog>
  );
}
