import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { invoicesQuery } from '../../queries/billing';
import { EmptyState, QueryView, useFormat } from '../../ui';
import { ScrollTable } from './table';

/** Invoices, newest first, each with the provider's page to read and download it. */
export function Invoices() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const invoices = useQuery(invoicesQuery());
  return (
    <section className="card stack" aria-labelledby="billing-invoices">
      <h2 id="billing-invoices">{t('billing.invoices.title')}</h2>
      <QueryView query={invoices}>
        {(page) =>
          page.items.length === 0 ? (
            <EmptyState title={t('billing.invoices.empty')} />
          ) : (
            <ScrollTable caption={t('billing.invoices.title')}>
              <thead>
                <tr>
                  <th scope="col">{t('billing.invoices.number')}</th>
                  <th scope="col">{t('billing.invoices.date')}</th>
                  <th scope="col">{t('billing.invoices.purpose')}</th>
                  <th scope="col">{t('billing.invoices.amount')}</th>
                  <th scope="col">{t('billing.invoices.status')}</th>
                  <th scope="col">
                    <span className="visually-hidden">{t('billing.invoices.download')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((i) => {
                  const name = i.number ?? i.id;
                  return (
                    <tr key={i.id}>
                      <th scope="row">{name}</th>
                      <td>{fmt.date(i.paid_at ?? i.created_at)}</td>
                      <td>{t(`billing.purposes.${i.purpose}`)}</td>
                      <td>
                        {fmt.number(i.amount_paid_usd > 0 ? i.amount_paid_usd : i.amount_due_usd, {
                          style: 'currency',
                          currency: i.currency.toUpperCase(),
                        })}
                      </td>
                      <td>{t(`billing.invoiceStatuses.${i.status}`, { defaultValue: i.status })}</td>
                      <td>
                        {i.hosted_invoice_url && (
                          <a href={i.hosted_invoice_url} target="_blank" rel="noopener noreferrer">
                            {t('billing.invoices.open', { number: name })}
                          </a>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </ScrollTable>
          )
        }
      </QueryView>
    </section>
  );
}
