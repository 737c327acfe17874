import { useMemo, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, data } from '../../api/client';
import type { Schema } from '../../api/types';
import { GRANTABLE_PLANS, staffKeys, type StaffFilters } from '../../queries/staff';
import { Button, KeysetTable, SelectField, TextField, useFormat, useKeysetQuery, type Column } from '../../ui';
import { RequireStaff } from './require-staff';
import '../workspaces/workspaces.css';

type Org = Schema<'StaffOrganization'>;

/** /staff/organizations: every organization of the installation with its plan and credits (staff). */
export default function StaffOrganizations() {
  return (
    <RequireStaff>
      <Organizations />
    </RequireStaff>
  );
}

function Organizations() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [q, setQ] = useState('');
  const [plan, setPlan] = useState('');
  const [filters, setFilters] = useState<StaffFilters>({});
  const query = useKeysetQuery<Org>(staffKeys.organizations(filters), (cursor) =>
    data(api.GET('/v1/staff/organizations', { params: { query: { ...filters, cursor } } })),
  );
  const columns = useMemo<Column<Org>[]>(
    () => [
      {
        header: t('staff.columns.name'),
        cell: (o) => (
          <>
            <Link to={`/staff/organizations/${o.id}`}>{o.name}</Link>
            <div className="muted">
              <code>{o.slug}</code>
            </div>
          </>
        ),
      },
      {
        header: t('staff.columns.plan'),
        cell: (o) => (
          <>
            {t(`staff.plans.${o.plan}`)}
            <div className="muted">{t(`staff.statuses.${o.subscription_status}`)}</div>
          </>
        ),
      },
      { header: t('staff.columns.credits'), cell: (o) => fmt.number(o.credits_remaining) },
      { header: t('staff.columns.members'), cell: (o) => fmt.number(o.members) },
      { header: t('staff.columns.created'), cell: (o) => fmt.date(o.created_at) },
    ],
    [t, fmt],
  );
  const search = (e: FormEvent) => {
    e.preventDefault();
    setFilters({ ...(q.trim() ? { q: q.trim() } : {}), ...(plan ? { plan: plan as StaffFilters['plan'] } : {}) });
  };
  return (
    <div className="stack">
      <div className="spread">
        <h1>{t('staff.organizations.title')}</h1>
        <Link className="btn" to="/staff/claims">
          {t('staff.claims.nav')}
        </Link>
      </div>
      <p className="muted">{t('staff.organizations.intro')}</p>
      <form className="card row" onSubmit={search} role="search" aria-label={t('staff.organizations.search')}>
        <TextField
          label={t('staff.organizations.query')}
          hint={t('staff.organizations.queryHint')}
          value={q}
          onChange={(e) => setQ(e.target.value)}
        />
        <SelectField label={t('staff.columns.plan')} value={plan} onChange={(e) => setPlan(e.target.value)}>
          <option value="">{t('staff.organizations.anyPlan')}</option>
          {GRANTABLE_PLANS.map((p) => (
            <option key={p} value={p}>
              {t(`staff.plans.${p}`)}
            </option>
          ))}
        </SelectField>
        <Button type="submit" variant="primary">
          {t('staff.organizations.search')}
        </Button>
      </form>
      <KeysetTable
        caption={t('staff.organizations.title')}
        columns={columns}
        query={query}
        rowKey={(o) => o.id}
        emptyTitle={t('staff.organizations.empty')}
      />
    </div>
  );
}
