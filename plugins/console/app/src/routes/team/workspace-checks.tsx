import { useTranslation } from 'react-i18next';
import { useMe } from '../../queries/session';
import { CheckboxGroup } from '../../ui';

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
    <CheckboxGroup
      legend={legend}
      hint={hint}
      error={error}
      options={workspaces.map((w) => ({ value: w.id, label: w.name }))}
      value={value}
      onChange={onChange}
      className="team-checks"
    >
      {workspaces.length === 0 && <p className="muted">{t('team.noWorkspaces')}</p>}
    </CheckboxGroup>
  );
}
