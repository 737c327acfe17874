import { useTranslation } from 'react-i18next';
import { grantableRoles, type Role } from '../../queries/team';
import { SelectField } from '../../ui';

/** The role a member, an invitation or a token gets: at most the role of the person choosing (`mine`). */
export function RoleSelect({
  mine,
  hint,
  value,
  onChange,
  error,
}: {
  mine: Role;
  hint?: string;
  value: Role;
  onChange: (role: Role) => void;
  error?: string;
}) {
  const { t } = useTranslation();
  return (
    <SelectField
      label={t('team.members.role')}
      hint={hint}
      value={value}
      onChange={(e) => onChange(e.target.value as Role)}
      error={error}
    >
      {grantableRoles(mine).map((r) => (
        <option key={r} value={r}>
          {t(`roles.${r}`)}
        </option>
      ))}
    </SelectField>
  );
}
