import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { isApiError } from '../../api/errors';
import type { RequestBody } from '../../api/types';
import { authKeys } from '../../queries/session';
import { organizationQuery, securityKeys, type Organization } from '../../queries/security';
import {
  CheckboxField,
  ErrorAlert,
  Form,
  FormActions,
  LocaleOptions,
  QueryView,
  SelectField,
  TextField,
  fieldError,
  useFormat,
  useToast,
} from '../../ui';
import '../workspaces/workspaces.css';

type Body = RequestBody<'/v1/orgs/current', 'patch'>;

/**
 * /settings/organization (owners and admins): the organization's own settings (PATCH
 * /v1/orgs/current). Plan and billing change in billing, approvals in security.
 */
export default function OrganizationPage() {
  const { t } = useTranslation();
  const org = useQuery(organizationQuery());
  return (
    <div className="stack">
      <h1>{t('security.org.title')}</h1>
      <p className="muted">{t('security.org.intro')}</p>
      <QueryView query={org}>
        {(o) => (
          <>
            <OrgForm key={o.updated_at} org={o} />
            <Facts org={o} />
          </>
        )}
      </QueryView>
    </div>
  );
}

function OrgForm({ org }: { org: Organization }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const [f, setF] = useState({
    name: org.name,
    slug: org.slug,
    billing_email: org.billing_email ?? '',
    locale: org.locale,
    retention_days: String(org.retention_days),
    patterns_opt_in: org.patterns_opt_in,
  });
  const save = useMutation({
    mutationFn: () => {
      // Only what changed (the API audits each changed field); a blank billing address clears it.
      const body: Body = {};
      if (f.name.trim() !== org.name) body.name = f.name.trim();
      if (f.slug.trim() !== org.slug) body.slug = f.slug.trim();
      if (f.billing_email.trim() !== (org.billing_email ?? '')) body.billing_email = f.billing_email.trim() || null;
      if (f.locale !== org.locale) body.locale = f.locale;
      if (f.retention_days !== String(org.retention_days)) body.retention_days = Number(f.retention_days);
      if (f.patterns_opt_in !== org.patterns_opt_in) body.patterns_opt_in = f.patterns_opt_in;
      if (Object.keys(body).length === 0) return Promise.resolve(org);
      return data(api.PATCH('/v1/orgs/current', { body }));
    },
    onSuccess: (next) => {
      client.setQueryData(securityKeys.organization(), next);
      // The user menu shows the organization's name (AuthContext).
      void client.invalidateQueries({ queryKey: authKeys.me() });
      toast.success(t('security.org.saved'));
    },
  });
  const err = (k: string) => fieldError(save.error, k);
  return (
    <Form className="card stack" onSubmit={() => save.mutate()} aria-labelledby="org-settings">
      <h2 id="org-settings">{t('security.org.settings')}</h2>
      <ErrorAlert
        error={save.error}
        fields={['name', 'slug', 'billing_email', 'locale', 'retention_days', 'patterns_opt_in']}
      />
      <div className="ws-fields">
        <TextField
          label={t('security.org.name')}
          value={f.name}
          onChange={(e) => setF({ ...f, name: e.target.value })}
          error={err('name')}
        />
        <TextField
          label={t('security.org.slug')}
          hint={t('security.org.slugHint')}
          value={f.slug}
          onChange={(e) => setF({ ...f, slug: e.target.value })}
          error={
            err('slug') ??
            (isApiError(save.error) && save.error.code === 'slug_taken' ? t('security.org.slugTaken') : undefined)
          }
        />
        <TextField
          label={t('security.org.billingEmail')}
          hint={t('security.org.billingEmailHint')}
          type="email"
          value={f.billing_email}
          onChange={(e) => setF({ ...f, billing_email: e.target.value })}
          error={err('billing_email')}
        />
        <SelectField
          label={t('security.org.locale')}
          value={f.locale}
          onChange={(e) => setF({ ...f, locale: e.target.value as Organization['locale'] })}
        >
          <LocaleOptions />
        </SelectField>
        <TextField
          label={t('security.org.retention')}
          hint={t('security.org.retentionHint')}
          type="number"
          min={7}
          max={3650}
          value={f.retention_days}
          onChange={(e) => setF({ ...f, retention_days: e.target.value })}
          error={err('retention_days')}
        />
      </div>
      <CheckboxField
        label={t('security.org.patterns')}
        hint={t('security.org.patternsHint')}
        checked={f.patterns_opt_in}
        onChange={(e) => setF({ ...f, patterns_opt_in: e.target.checked })}
      />
      <FormActions submit={t('common.save')} pending={save.isPending} />
    </Form>
  );
}

function Facts({ org }: { org: Organization }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  return (
    <section className="card stack" aria-labelledby="org-facts">
      <h2 id="org-facts">{t('security.org.facts')}</h2>
      <dl className="ws-facts">
        <dt>{t('security.org.plan')}</dt>
        <dd>{t(`security.plans.${org.plan}`, { defaultValue: org.plan })}</dd>
        <dt>{t('security.org.type')}</dt>
        <dd>{t(`security.org.types.${org.type}`)}</dd>
        <dt>{t('security.org.ssoEnforced')}</dt>
        <dd>{org.sso_enforced ? t('security.yes') : t('security.no')}</dd>
        <dt>{t('security.org.approvals')}</dt>
        <dd>
          {t('security.org.approvalsValue', {
            count: org.approval_min_approvers,
            roles: org.approval_roles.map((r) => t(`roles.${r}`)).join(', '),
          })}
        </dd>
        <dt>{t('security.org.created')}</dt>
        <dd>{fmt.date(org.created_at)}</dd>
      </dl>
    </section>
  );
}
