import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { securityKeys, type Governance, type SecurityOverview } from '../../queries/security';
import { authKeys } from '../../queries/session';
import { CheckboxField, ErrorAlert, Form, FormActions, TextField, fieldError, useFormat, useToast } from '../../ui';

type ApproverRole = Governance['roles'][number];
const ROLES: ApproverRole[] = ['owner', 'admin', 'reviewer'];

/** How many approvals fixes and releases need, and which roles give them (owners change it). */
export function GovernanceSection({ governance: g, owner }: { governance: Governance; owner: boolean }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const toast = useToast();
  const client = useQueryClient();
  const [min, setMin] = useState(String(g.min_approvers));
  const [roles, setRoles] = useState<ApproverRole[]>(g.roles);
  const save = useMutation({
    mutationFn: () => data(api.PUT('/v1/security/governance', { body: { min_approvers: Number(min), roles } })),
    onSuccess: (next) => {
      client.setQueryData<SecurityOverview>(securityKeys.overview(), (o) => o && { ...o, governance: next });
      // The shell shows Approvals to the approver roles (AuthContext.organization.approval_roles).
      void client.invalidateQueries({ queryKey: authKeys.me() });
      toast.success(t('security.governance.saved'));
    },
  });
  const toggle = (r: ApproverRole, on: boolean) =>
    setRoles((rs) => (on ? ROLES.filter((x) => x === r || rs.includes(x)) : rs.filter((x) => x !== r)));
  return (
    <Form className="card stack" onSubmit={() => save.mutate()} aria-labelledby="governance">
      <h2 id="governance">{t('security.governance.title')}</h2>
      <p className="muted">
        {t('security.governance.intro', {
          min: g.defaults.min_approvers,
          roles: g.defaults.roles.map((r) => t(`roles.${r}`)).join(', '),
        })}
      </p>
      <ErrorAlert error={save.error} fields={['min_approvers', 'roles']} />
      <div className="ws-fields">
        <TextField
          label={t('security.governance.min')}
          hint={t('security.governance.minHint', { max: g.max_min_approvers })}
          type="number"
          min={1}
          max={g.max_min_approvers}
          value={min}
          onChange={(e) => setMin(e.target.value)}
          disabled={!owner}
          error={fieldError(save.error, 'min_approvers')}
        />
        <fieldset>
          <legend>{t('security.governance.roles')}</legend>
          <div className="ws-multi">
            {ROLES.map((r) => (
              <CheckboxField
                key={r}
                label={t(`roles.${r}`)}
                checked={roles.includes(r)}
                disabled={!owner}
                onChange={(e) => toggle(r, e.target.checked)}
              />
            ))}
          </div>
        </fieldset>
      </div>
      <p>{t('security.governance.eligible', { count: g.eligible_approvers })}</p>
      {g.workspaces_below_minimum.length > 0 && (
        <div className="alert alert-warning" role="note">
          <strong>{t('security.governance.below')}</strong>
          <ul>
            {g.workspaces_below_minimum.map((w) => (
              <li key={w.id}>
                {t('security.governance.belowOne', {
                  name: w.name,
                  count: w.eligible,
                  eligible: fmt.number(w.eligible),
                })}
              </li>
            ))}
          </ul>
        </div>
      )}
      {owner && <FormActions submit={t('common.save')} pending={save.isPending} />}
    </Form>
  );
}
