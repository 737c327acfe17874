import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { agencyOverviewQuery, agencyQueueQuery, agencyWhiteLabelQuery } from '../../queries/agency';
import { EmptyState, QueryView, useFormat } from '../../ui';
import { AgencyError, AgencyNav, useTicketsText } from './nav';
import '../workspaces/workspaces.css';
import '../billing/billing.css';
import { ScrollTable } from '../billing/table';

/** /agency: a card per client with its workspace and numbers, the work queue of every client, white-label readiness. */
export default function AgencyOverview() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const overview = useQuery(agencyOverviewQuery());
  const readiness = useReadiness();
  const ticketsText = useTicketsText();
  const usd = (v: number | null) => (v == null ? t('agency.noPrice') : fmt.usd(v));
  return (
    <div className="stack">
      <h1>{t('agency.title')}</h1>
      <AgencyNav />
      <QueryView query={overview} failed={AgencyError}>
        {(o) => (
          <>
            <section className="card stack" aria-labelledby="agency-totals">
              <h2 id="agency-totals">{t('agency.totals.title')}</h2>
              <dl className="billing-figures">
                {(['clients', 'open', 'awaiting_approval', 'escalated', 'overdue', 'white_label_ready'] as const).map(
                  (k) => (
                    <div key={k}>
                      <dt>{t(`agency.totals.${k}`)}</dt>
                      <dd>{fmt.number(o.totals[k])}</dd>
                    </div>
                  ),
                )}
              </dl>
            </section>
            <section className="stack" aria-labelledby="agency-clients">
              <h2 id="agency-clients">{t('agency.clients.title')}</h2>
              {o.clients.length === 0 ? (
                <EmptyState title={t('agency.clients.empty')}>
                  <p>{t('agency.clients.emptyBody')}</p>
                </EmptyState>
              ) : (
                <ul className="billing-cards">
                  {o.clients.map((c) => (
                    <li key={c.workspace_id} className="card stack">
                      <h3>
                        <Link to={`/agency/clients/${c.workspace_id}`}>{c.client_name}</Link>
                      </h3>
                      <div className="muted">{t('agency.clients.workspace', { name: c.name })}</div>
                      <div>{ticketsText(c.tickets)}</div>
                      <div>
                        {t('agency.clients.month', {
                          opened: c.tickets.opened_this_month,
                          resolved: c.tickets.resolved_this_month,
                        })}
                      </div>
                      <div>
                        {t('agency.clients.price', { price: usd(c.resale_price_usd) })}
                        {c.managed_addon && (
                          <>
                            {' '}
                            · <span className="badge">{t('agency.clients.managed')}</span>
                          </>
                        )}
                      </div>
                      <div>{readiness(c.white_label)}</div>
                    </li>
                  ))}
                </ul>
              )}
            </section>
            <Queue />
            <WhiteLabel />
          </>
        )}
      </QueryView>
    </div>
  );
}

/** Approvals and escalations of every client, most urgent first, with their SLA timers. */
function Queue() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const queue = useQuery(agencyQueueQuery());
  return (
    <section className="card stack" aria-labelledby="agency-queue">
      <h2 id="agency-queue">{t('agency.queue.title')}</h2>
      <QueryView query={queue} failed={AgencyError}>
        {(q) =>
          q.items.length === 0 ? (
            <p className="muted">{t('agency.queue.empty')}</p>
          ) : (
            <ScrollTable caption={t('agency.queue.title')}>
              <thead>
                <tr>
                  <th scope="col">{t('agency.queue.ticket')}</th>
                  <th scope="col">{t('agency.queue.client')}</th>
                  <th scope="col">{t('agency.queue.kind')}</th>
                  <th scope="col">{t('agency.queue.sla')}</th>
                </tr>
              </thead>
              <tbody>
                {q.items.map((i) => (
                  <tr key={i.ticket_id}>
                    <td>
                      <Link to={`/tickets/${i.ticket_id}`}>{i.subject}</Link>
                    </td>
                    <td>{i.client_name}</td>
                    <td>
                      {t(`agency.queue.kinds.${i.kind}`)}
                      {i.reason ? `: ${i.reason}` : ''}
                    </td>
                    <td>
                      {i.sla.due_at
                        ? t(i.sla.overdue ? 'agency.queue.overdue' : 'agency.queue.due', {
                            when: fmt.relative(i.sla.due_at),
                          })
                        : '–'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </ScrollTable>
          )
        }
      </QueryView>
    </section>
  );
}

/** Which clients can go out under their own brand, and what each still misses. */
function WhiteLabel() {
  const { t } = useTranslation();
  const wl = useQuery(agencyWhiteLabelQuery());
  const readiness = useReadiness();
  return (
    <section className="card stack" aria-labelledby="agency-white-label">
      <h2 id="agency-white-label">{t('agency.whiteLabel.title')}</h2>
      <QueryView query={wl} failed={AgencyError}>
        {(w) => (
          <>
            <p>{t('agency.whiteLabel.summary', { ready: w.ready, total: w.total })}</p>
            <ul>
              {w.items.map((i) => (
                <li key={i.workspace_id}>
                  <strong>{i.client_name}</strong>: {readiness(i)}
                </li>
              ))}
            </ul>
          </>
        )}
      </QueryView>
    </section>
  );
}

/** Ready for white label, or what the client still needs in words (the API's codes; an unknown one as it is). */
function useReadiness() {
  const { t } = useTranslation();
  const missingText = (missing: string[]) =>
    missing.map((m) => t(`agency.whiteLabel.items.${m}`, { defaultValue: m })).join(', ');
  return ({ ready, missing }: { ready: boolean; missing: string[] }) =>
    ready ? t('agency.whiteLabel.ready') : t('agency.whiteLabel.missing', { missing: missingText(missing) });
}
