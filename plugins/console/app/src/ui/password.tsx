import type { ComponentProps } from 'react';
import { useTranslation } from 'react-i18next';
import { TextField } from './field';

/** A password being chosen: the browser may offer one (`new-password`), and the hint gives the API's rules. */
export function NewPasswordField(props: Omit<ComponentProps<typeof TextField>, 'type' | 'autoComplete' | 'hint'>) {
  const { t } = useTranslation();
  return <TextField type="password" autoComplete="new-password" hint={t('fields.passwordHint')} {...props} />;
}
