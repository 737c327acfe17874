import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { Schema } from '../../api/types';
import { billingKeys, referralsQuery } from '../../queries/billing';
import {
  Form,
  FormActions,
  KeysetTable,
  QueryView,
  SelectField,
  TextField,
  fieldError,
  useFormat,
  useKeysetQuery,
  useToast,
  type Column,
} from '../../ui';
import { ReasonAlert } from './reason';

type Claim = Schema<'Claim'>;

/** Free fixes for a published review or case study: the claims made, and a new one (owners and admins). */
export function Claims({ manage }: { manage: boolean }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const toast = useToast();
  const client = useQueryClient();
  const query = useKeysetQuery<Claim>(billingKeys.claims(), (cursor) =>
    data(api.GET('/v1/billing/claims', { params: { query: { cursor } } })),
  );
  const [kind, setKind] = useState<Claim['kind']>('review');
  const [url, setUrl] = useState('');
  const [note, setNote] = useState('');
  const create = useMutation({
    mutationFn: () => data(api.POST('/v1/billing/claims', { body: { kind, url, ...(note ? { note } : {}) } })),
    onSuccess: () => {
      setUrl('');
      setNote('');
      toast.success(t('billing.claims.sent'));
      void client.invalidateQueries({ queryKey: billingKeys.claims() });
    },
  });
  const columns: Column<Claim>[] = [
    { header: t('billing.claims.kind'), cell: (c) => t(`billing.claims.kinds.${c.kind}`) },
    {
      header: t('billing.claims.url'),
      cell: (c) => (
        <a href={c.url} target="_blank" rel="noopener noreferrer">
          {c.url}
        </a>
      ),
    },
    { header: t('billing.claims.status'), cell: (c) => t(`billing.claims.statuses.${c.status}`) },
    { header: t('billing.claims.fixes'), cell: (c) => fmt.number(c.fixes) },
    { header: t('billing.claims.date'), cell: (c) => fmt.date(c.created_at) },
  ];
  return (
    <section className="card stack" aria-labelledby="billing-claims">
      <h2 id="billing-claims">{t('billing.claims.title')}</h2>
      <p className="muted">{t('billing.claims.intro')}</p>
      <KeysetTable
        caption={t('billing.claims.title')}
        columns={columns}
        query={query}
        rowKey={(c) => c.id}
        emptyTitle={t('billing.claims.empty')}
      />
      {manage && (
        <Form className="stack" onSubmit={() => create.mutate()}>
          <SelectField
            label={t('billing.claims.kind')}
            value={kind}
            onChange={(e) => setKind(e.target.value as Claim['kind'])}
          >
            <option value="review">{t('billing.claims.kinds.review')}</option>
            <option value="case_study">{t('billing.claims.kinds.case_study')}</option>
          </SelectField>
          <TextField
            label={t('billing.claims.url')}
            type="url"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            error={fieldError(create.error, 'url')}
          />
          <TextField
            label={t('billing.claims.note')}
            value={note}
            onChange={(e) => setNote(e.target.value)}
            error={fieldError(create.error, 'note')}
          />
          <ReasonAlert error={create.error} fields={['url', 'note', 'kind']} />
          <FormActions submit={t('billing.claims.submit')} variant="secondary" pending={create.isPending} />
        </Form>
      )}
    </section>
  );
}

/** The organization's referral link and who signed up with it (owners and admins). */
export function Referrals() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const referrals = useQuery(referralsQuery());
  return (
    <section className="card stack" aria-labelledby="billing-referrals">
      <h2 id="billing-referrals">{t('billing.referrals.title')}</h2>
      <QueryView query={referrals}>
        {(r) => (
          <>
            <p>
              {t('billing.referrals.intro', {
                referrer: r.referrer_fixes,
                referred: r.referred_fixes,
              })}
            </p>
            <p>
              {t('billing.referrals.link')}: <code>{r.url}</code>
            </p>
            <p>
              {t('billing.referrals.count', {
                count: r.referred_count,
                earned: r.earned_fixes,
              })}
            </p>
            {r.items.length > 0 && (
              <ul>
                {r.items.map((r) => (
                  <li key={r.id}>
                    {t('billing.referrals.item', {
                      name: r.organization_name,
                      date: fmt.date(r.signed_up_at),
                      fixes: r.fixes,
                    })}
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </QueryView>
    </section>
  );
}
