import { useTranslation } from 'react-i18next';
import { useMe } from '../../queries/session';
import { CheckboxField } from '../../ui';

/** The workspaces a reviewer, client viewer or token may open: the caller's own, one checkbox each. */
export function WorkspaceChecks({
  legend,
  hint,
  value,
  onChange,
  error,
}: {
  legend: string;
  hint?: string;
  value: string[];
  onChange: (ids: string[]) => void;
  error?: string;
}) {
  const { t } = useTranslation();
  const workspaces = (useMe().data?.workspaces ?? []).filter((w) => !w.archived_at);
  return (
    <fieldset>
      <legend>{legend}</legend>
      {hint && <p className="hint muted">{hint}</p>}
      {workspaces.length === 0 && <p className="muted">{t('team.noWorkspaces')}</p>}
      <div className="team-checks">
        {workspaces.map((w) => (
          <CheckboxField
            key={w.id}
            label={w.name}
            checked={value.includes(w.id)}
            onChange={(e) => onChange(e.target.checked ? [...value, w.id] : value.filter((id) => id !== w.id))}
          />
        ))}
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}
