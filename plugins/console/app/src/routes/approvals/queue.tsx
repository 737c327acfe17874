import { useMemo } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { approvalKeys, fetchApprovals, type ApprovalItem } from '../../queries/approvals';
import { useMe } from '../../queries/session';
import { ticketKeys } from '../../queries/tickets';
import { Button, KeysetTable, useFormat, useKeysetQuery, useToast, type Column } from '../../ui';

const short = (sha: string) => sha.slice(0, 7);

/**
 * /approvals: fixes and batched release proposals waiting for the signed-in person's approval,
 * oldest first (GET /v1/approvals; empty for a role that does not approve). A fix is reviewed
 * on its ticket page, where its diff is; a release proposal is approved here at its head.
 */
export default function ApprovalQueue() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const me = useMe();
  const query = useKeysetQuery<ApprovalItem>(approvalKeys.list(), fetchApprovals);
  const workspaces = useMemo(() => new Map(me.data?.workspaces.map((w) => [w.id, w.name]) ?? []), [me.data]);
  const columns: Column<ApprovalItem>[] = [
    {
      header: t('approvals.what'),
      cell: (r) =>
        r.kind === 'fix' && r.ticket_id ? (
          <Link to={`/tickets/${r.ticket_id}`}>{r.subject || t('inbox.noSubject')}</Link>
        ) : (
          <span>{t('approvals.release', { count: r.tickets })}</span>
        ),
    },
    { header: t('approvals.kind'), cell: (r) => <span className="badge">{t(`approvals.kinds.${r.kind}`)}</span> },
    { header: t('inbox.workspace'), cell: (r) => workspaces.get(r.workspace_id) ?? r.workspace_id },
    { header: t('approvals.commit'), cell: (r) => <code title={r.head_sha}>{short(r.head_sha)}</code> },
    {
      header: t('approvals.approvals'),
      cell: (r) => t('ticket.fix.approvalCount', { count: r.approvals, min: r.min_approvers }),
    },
    {
      header: t('approvals.waiting'),
      cell: (r) => (
        <time dateTime={r.waiting_since} title={fmt.dateTime(r.waiting_since)}>
          {fmt.relative(r.waiting_since)}
        </time>
      ),
    },
    {
      header: t('approvals.actions'),
      hiddenHeader: true,
      cell: (r) =>
        r.kind === 'fix' && r.ticket_id ? (
          <Link className="btn btn-primary" to={`/tickets/${r.ticket_id}`}>
            {t('approvals.review')}
          </Link>
        ) : (
          r.release_id && <ApproveRelease releaseId={r.release_id} sha={r.head_sha} />
        ),
    },
  ];
  return (
    <div className="stack">
      <h1>{t('approvals.title')}</h1>
      <p className="muted">{t('approvals.intro')}</p>
      <KeysetTable
        caption={t('approvals.title')}
        columns={columns}
        query={query}
        rowKey={(r) => `${r.kind}-${r.fix_attempt_id ?? r.release_id}`}
        emptyTitle={t('approvals.empty')}
        emptyBody={<p>{t('approvals.emptyBody')}</p>}
      />
    </div>
  );
}

function ApproveRelease({ releaseId, sha }: { releaseId: string; sha: string }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const approve = useMutation({
    mutationFn: () =>
      data(api.POST('/v1/releases/{id}/approve', { params: { path: { id: releaseId } }, body: { sha } })),
    onSuccess: () => {
      toast.success(t('approvals.releaseApproved'));
      void client.invalidateQueries({ queryKey: approvalKeys.all });
      void client.invalidateQueries({ queryKey: ticketKeys.all });
    },
    onError: (e) => {
      toast.error(e);
      void client.invalidateQueries({ queryKey: approvalKeys.all });
    },
  });
  return (
    <Button variant="primary" pending={approve.isPending} onClick={() => approve.mutate()}>
      {t('approvals.approveReleaseAt', { sha: short(sha) })}
    </Button>
  );
}
