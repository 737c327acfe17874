import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { Schema } from '../../api/types';
import { analyticsKeys } from '../../queries/analytics';
import {
  Button,
  Dialog,
  Form,
  KeysetTable,
  SelectField,
  TextField,
  fieldError,
  useFormat,
  useKeysetQuery,
  type Column,
} from '../../ui';
import { ReasonAlert } from '../billing/reason';

type Review = Schema<'OssSponsorshipReview'>;
type Status = Review['status'];

/** Staff only: open-source projects asking for sponsored fixes, and the decision on each. */
export function Sponsorships() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [status, setStatus] = useState<Status>('received');
  const [deciding, setDeciding] = useState<Review | null>(null);
  const query = useKeysetQuery<Review>(analyticsKeys.sponsorships(status), (cursor) =>
    data(api.GET('/v1/analytics/oss-sponsorship-requests', { params: { query: { status, cursor } } })),
  );
  const columns: Column<Review>[] = [
    {
      header: t('analytics.sponsorship.repository'),
      cell: (r) => (
        <a href={r.repository_url} target="_blank" rel="noopener noreferrer">
          {r.repository}
        </a>
      ),
    },
    { header: t('analytics.sponsorship.from'), cell: (r) => `${r.name} <${r.email}>` },
    {
      header: t('analytics.sponsorship.issues'),
      cell: (r) => (r.monthly_issues == null ? '–' : fmt.number(r.monthly_issues)),
    },
    { header: t('analytics.sponsorship.received'), cell: (r) => fmt.date(r.created_at) },
    {
      header: t('analytics.sponsorship.decision'),
      cell: (r) =>
        r.status === 'received' ? (
          <Button
            aria-label={t('analytics.sponsorship.decideFor', { repository: r.repository })}
            onClick={() => setDeciding(r)}
          >
            {t('analytics.sponsorship.decide')}
          </Button>
        ) : (
          t('analytics.sponsorship.decided', {
            status: t(`analytics.sponsorship.statuses.${r.status}`),
            who: r.decided_by ?? '',
            fixes: r.fixes_granted ?? 0,
          })
        ),
    },
  ];
  return (
    <section className="card stack" aria-labelledby="analytics-sponsorship">
      <h2 id="analytics-sponsorship">{t('analytics.sponsorship.title')}</h2>
      <p className="muted">{t('analytics.sponsorship.staffOnly')}</p>
      <SelectField
        label={t('analytics.sponsorship.status')}
        value={status}
        onChange={(e) => setStatus(e.target.value as Status)}
      >
        {(['received', 'approved', 'declined'] as const).map((s) => (
          <option key={s} value={s}>
            {t(`analytics.sponsorship.statuses.${s}`)}
          </option>
        ))}
      </SelectField>
      <KeysetTable
        caption={t('analytics.sponsorship.title')}
        columns={columns}
        query={query}
        rowKey={(r) => r.id}
        emptyTitle={t('analytics.sponsorship.empty')}
      />
      {deciding && <Decide review={deciding} onClose={() => setDeciding(null)} />}
    </section>
  );
}

function Decide({ review, onClose }: { review: Review; onClose: () => void }) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const [orgId, setOrgId] = useState(review.organization_id ?? '');
  const [fixes, setFixes] = useState('20');
  const [note, setNote] = useState('');
  const decide = useMutation({
    mutationFn: (decision: 'approve' | 'decline') =>
      data(
        api.POST('/v1/analytics/oss-sponsorship-requests/{id}/decision', {
          params: { path: { id: review.id } },
          body: {
            decision,
            organization_id: orgId || null,
            note: note || null,
            ...(decision === 'approve' ? { fixes: Number(fixes) } : {}),
          },
        }),
      ),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: [...analyticsKeys.all, 'sponsorships'] });
      onClose();
    },
  });
  const submit = () => {
    decide.mutate('approve');
  };
  return (
    <Dialog open title={t('analytics.sponsorship.decideTitle', { repository: review.repository })} onClose={onClose}>
      <Form className="stack" onSubmit={submit}>
        {review.project_description && <p>{review.project_description}</p>}
        <TextField
          label={t('analytics.sponsorship.organization')}
          hint={t('analytics.sponsorship.organizationHint')}
          value={orgId}
          onChange={(e) => setOrgId(e.target.value)}
          error={fieldError(decide.error, 'organization_id')}
        />
        <TextField
          label={t('analytics.sponsorship.fixes')}
          inputMode="numeric"
          value={fixes}
          onChange={(e) => setFixes(e.target.value)}
          error={fieldError(decide.error, 'fixes')}
        />
        <TextField
          label={t('analytics.sponsorship.note')}
          value={note}
          onChange={(e) => setNote(e.target.value)}
          error={fieldError(decide.error, 'note')}
        />
        <ReasonAlert error={decide.error} fields={['organization_id', 'fixes', 'note']} />
        <div className="row">
          <Button type="submit" variant="primary" pending={decide.isPending && decide.variables === 'approve'}>
            {t('analytics.sponsorship.approve')}
          </Button>
          <Button
            variant="danger"
            pending={decide.isPending && decide.variables === 'decline'}
            onClick={() => decide.mutate('decline')}
          >
            {t('analytics.sponsorship.decline')}
          </Button>
          <Button onClick={onClose}>{t('common.cancel')}</Button>
        </div>
      </Form>
    </Dialog>
  );
}
