import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { Schema } from '../../api/types';
import { staffKeys, type ClaimStatus } from '../../queries/staff';
import {
  Button,
  ConfirmDialog,
  KeysetTable,
  SelectField,
  TextField,
  useFormat,
  useKeysetQuery,
  useToast,
  type Column,
} from '../../ui';
import { RequireStaff } from './require-staff';
import '../workspaces/workspaces.css';

type Claim = Schema<'StaffClaim'>;
type Decision = 'approve' | 'reject';

/** /staff/claims: credit claims for a review or case study, of every organization (staff decide). */
export default function StaffClaims() {
  return (
    <RequireStaff>
      <Claims />
    </RequireStaff>
  );
}

function Claims() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [status, setStatus] = useState<ClaimStatus | ''>('pending');
  const [deciding, setDeciding] = useState<{ claim: Claim; decision: Decision } | null>(null);
  const query = useKeysetQuery<Claim>(staffKeys.claims(status), (cursor) =>
    data(api.GET('/v1/staff/claims', { params: { query: { cursor, ...(status ? { status } : {}) } } })),
  );
  const columns = useMemo<Column<Claim>[]>(
    () => [
      {
        header: t('staff.claims.organization'),
        cell: (c) => <Link to={`/staff/organizations/${c.org_id}`}>{c.organization_name}</Link>,
      },
      {
        header: t('staff.claims.kind'),
        cell: (c) => (
          <>
            {t(`staff.sources.${c.kind}`)}
            <div className="muted">{t('staff.claims.fixes', { count: c.fixes })}</div>
          </>
        ),
      },
      {
        header: t('staff.claims.url'),
        cell: (c) => (
          <a href={c.url} target="_blank" rel="noreferrer noopener">
            {c.url}
          </a>
        ),
      },
      {
        header: t('staff.claims.requested'),
        cell: (c) => (
          <>
            {fmt.date(c.created_at)}
            {c.note && <div className="muted">{c.note}</div>}
          </>
        ),
      },
      { header: t('staff.claims.status'), cell: (c) => t(`staff.claims.statuses.${c.status}`) },
      {
        header: t('staff.claims.actions'),
        hiddenHeader: true,
        cell: (c) =>
          c.status === 'pending' ? (
            <div className="row">
              <Button
                onClick={() => setDeciding({ claim: c, decision: 'approve' })}
                aria-label={t('staff.claims.approveOf', { name: c.organization_name })}
              >
                {t('staff.claims.approve')}
              </Button>
              <Button
                variant="danger"
                onClick={() => setDeciding({ claim: c, decision: 'reject' })}
                aria-label={t('staff.claims.rejectOf', { name: c.organization_name })}
              >
                {t('staff.claims.reject')}
              </Button>
            </div>
          ) : null,
      },
    ],
    [t, fmt],
  );
  return (
    <div className="stack">
      <Link to="/staff/organizations">{t('staff.organization.back')}</Link>
      <h1>{t('staff.claims.title')}</h1>
      <p className="muted">{t('staff.claims.intro')}</p>
      <SelectField
        label={t('staff.claims.status')}
        value={status}
        onChange={(e) => setStatus(e.target.value as ClaimStatus | '')}
      >
        <option value="">{t('staff.claims.any')}</option>
        {(['pending', 'approved', 'rejected'] as const).map((s) => (
          <option key={s} value={s}>
            {t(`staff.claims.statuses.${s}`)}
          </option>
        ))}
      </SelectField>
      <KeysetTable
        caption={t('staff.claims.title')}
        columns={columns}
        query={query}
        rowKey={(c) => c.id}
        emptyTitle={t('staff.claims.empty')}
      />
      {deciding && <Decide claim={deciding.claim} decision={deciding.decision} onClose={() => setDeciding(null)} />}
    </div>
  );
}

function Decide({ claim, decision, onClose }: { claim: Claim; decision: Decision; onClose: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const [note, setNote] = useState('');
  const decide = useMutation({
    mutationFn: () =>
      data(
        api.POST('/v1/staff/claims/{id}/decision', {
          params: { path: { id: claim.id } },
          body: { decision, note: note.trim() || null },
        }),
      ),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: staffKeys.all });
      toast.success(
        t(decision === 'approve' ? 'staff.claims.approved' : 'staff.claims.rejected', {
          name: claim.organization_name,
        }),
      );
      onClose();
    },
  });
  return (
    <ConfirmDialog
      title={t(decision === 'approve' ? 'staff.claims.approveTitle' : 'staff.claims.rejectTitle', {
        name: claim.organization_name,
      })}
      confirm={t(decision === 'approve' ? 'staff.claims.approve' : 'staff.claims.reject')}
      danger={decision === 'reject'}
      pending={decide.isPending}
      error={decide.error}
      onConfirm={() => decide.mutate()}
      onClose={onClose}
    >
      {decision === 'approve' && <p>{t('staff.claims.approveBody', { count: claim.fixes })}</p>}
      <TextField
        label={t('staff.claims.note')}
        value={note}
        maxLength={2000}
        onChange={(e) => setNote(e.target.value)}
      />
    </ConfirmDialog>
  );
}
