import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { creditsQuery, type Billing } from '../../queries/billing';
import { Button, EmptyState, QueryView, useFormat } from '../../ui';
import { ScrollTable } from './table';

const PAGE = 20;

/**
 * Credits by source (the Billing summary: what is left and when the next ones expire) and the
 * ledger (GET /v1/billing/credits, the last 500 entries, newest first), shown a page at a time.
 */
export function Credits({ billing }: { billing: Billing }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const credits = useQuery(creditsQuery());
  const [shown, setShown] = useState(PAGE);
  const bySource = billing.summary.credits_by_source;
  return (
    <section className="card stack" aria-labelledby="billing-credits">
      <h2 id="billing-credits">{t('billing.credits.title')}</h2>
      <p>{t('billing.credits.remaining', { count: billing.summary.fixes.credits_remaining })}</p>
      {bySource.length === 0 ? (
        <p className="muted">{t('billing.credits.noneLeft')}</p>
      ) : (
        <ScrollTable caption={t('billing.credits.bySource')}>
          <thead>
            <tr>
              <th scope="col">{t('billing.credits.source')}</th>
              <th scope="col">{t('billing.credits.left')}</th>
              <th scope="col">{t('billing.credits.expires')}</th>
            </tr>
          </thead>
          <tbody>
            {bySource.map((c) => (
              <tr key={c.source}>
                <th scope="row">{t(`billing.sources.${c.source}`)}</th>
                <td>{fmt.number(c.fixes_remaining)}</td>
                <td>{c.next_expiry_at ? fmt.date(c.next_expiry_at) : t('billing.credits.never')}</td>
              </tr>
            ))}
          </tbody>
        </ScrollTable>
      )}
      <h3>{t('billing.credits.ledger')}</h3>
      <QueryView query={credits}>
        {(c) =>
          c.ledger.length === 0 ? (
            <EmptyState title={t('billing.credits.emptyLedger')} />
          ) : (
            <div className="stack">
              <ScrollTable caption={t('billing.credits.ledger')}>
                <thead>
                  <tr>
                    <th scope="col">{t('billing.credits.when')}</th>
                    <th scope="col">{t('billing.credits.kind')}</th>
                    <th scope="col">{t('billing.credits.source')}</th>
                    <th scope="col">{t('billing.credits.fixes')}</th>
                    <th scope="col">{t('billing.credits.note')}</th>
                  </tr>
                </thead>
                <tbody>
                  {c.ledger.slice(0, shown).map((e) => (
                    <tr key={e.id}>
                      <td>{fmt.dateTime(e.created_at)}</td>
                      <td>{t(`billing.kinds.${e.kind}`)}</td>
                      <td>{t(`billing.sources.${e.source}`)}</td>
                      <td>{e.fixes > 0 ? `+${fmt.number(e.fixes)}` : fmt.number(e.fixes)}</td>
                      <td>{e.note ?? (e.job_id ? t('billing.credits.job', { id: e.job_id }) : '')}</td>
                    </tr>
                  ))}
                </tbody>
              </ScrollTable>
              <div className="spread">
                <span className="muted">
                  {t('billing.credits.showing', {
                    shown: Math.min(shown, c.ledger.length),
                    total: c.ledger.length,
                  })}
                </span>
                {shown < c.ledger.length && (
                  <Button onClick={() => setShown((n) => n + PAGE)}>{t('common.loadMore')}</Button>
                )}
              </div>
            </div>
          )
        }
      </QueryView>
    </section>
  );
}
