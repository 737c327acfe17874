import { useTranslation } from 'react-i18next';
import { Link, NavLink } from 'react-router';
import { isApiError } from '../../api/errors';
import type { Schema } from '../../api/types';
import { ErrorState } from '../../ui';
import { ReasonAlert } from '../billing/reason';

/** The agency pages' own links: overview, resale and payouts, partner profile. */
export function AgencyNav() {
  const { t } = useTranslation();
  return (
    <nav aria-label={t('agency.nav.label')} className="row agency-nav">
      <NavLink to="/agency" end>
        {t('agency.nav.overview')}
      </NavLink>
      <NavLink to="/agency/resale">{t('agency.nav.resale')}</NavLink>
      <NavLink to="/agency/partner">{t('agency.nav.partner')}</NavLink>
    </nav>
  );
}

type ClientTickets = Schema<'AgencyClientSummary'>['tickets'];

/** A client's open work in one sentence (the overview's cards and the client page). */
export function useTicketsText() {
  const { t } = useTranslation();
  return (k: ClientTickets) =>
    t('agency.clients.tickets', {
      open: k.open,
      approval: k.awaiting_approval,
      escalated: k.escalated,
      overdue: k.overdue,
    });
}

/** A section that could not load: a plan without agency features (402) says so and points to billing. */
export function AgencyError({ error, retry }: { error: unknown; retry: () => void }) {
  const { t } = useTranslation();
  if (isApiError(error) && (error.status === 402 || error.status === 403)) {
    return (
      <div className="stack">
        <ReasonAlert error={error} />
        {error.status === 402 && (
          <p>
            <Link to="/billing">{t('agency.toBilling')}</Link>
          </p>
        )}
      </div>
    );
  }
  return <ErrorState error={error} retry={retry} />;
}
