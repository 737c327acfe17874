import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { isApiError } from '../../api/errors';
import type { ErrorGroup } from '../../queries/proactive';
import { Chart, ErrorAlert, useFormat } from '../../ui';

/** A group's status, and "held" when a cap or the plan keeps its ticket back. */
export function StatusBadge({ group }: { group: ErrorGroup }) {
  const { t } = useTranslation();
  return (
    <span className="row pa-badges">
      <span className={`badge pa-status pa-status-${group.status}`}>{t(`proactive.statuses.${group.status}`)}</span>
      {group.held_reason && <span className="badge pa-status pa-status-held">{t('proactive.statuses.held')}</span>}
      {group.regressed_at && group.status === 'watching' && (
        <span className="badge">{t('proactive.groups.regressed')}</span>
      )}
    </span>
  );
}

/** Codes whose reason the spec names (402, 409, 422 of the group and connector actions): said in words. */
const REASONS = new Set([
  'plan_limit_reached',
  'no_repository',
  'group_not_watching',
  'group_has_open_ticket',
  'group_not_ignored',
  'not_endpoint_connector',
  'connector_kind_unavailable',
  'invalid_settings',
  'workspace_archived',
  'invalid_transition',
  'version_exists',
  'invalid_version',
  'pattern_exists',
  'ticket_not_resolved',
  'patterns_opt_in_required',
  'invalid_source_map',
  'source_map_too_large',
  'payload_too_large',
]);

/**
 * A refused action with its reason in the person's words (a 402's details.reason: the plan, the monthly
 * cap, the ticket quota, the spend cap), then the API's own message and code; other errors as ErrorAlert.
 */
export function ActionError({ error, fields }: { error: unknown; fields?: string[] }) {
  const { t } = useTranslation();
  if (!error) return null;
  if (!isApiError(error) || !REASONS.has(error.code)) return <ErrorAlert error={error} fields={fields} />;
  const held =
    error.code === 'plan_limit_reached' && typeof error.details.reason === 'string' ? error.details.reason : null;
  const reason = held
    ? t(`proactive.held.${held}`, { defaultValue: t('proactive.reasons.plan_limit_reached') })
    : t(`proactive.reasons.${error.code}`);
  return (
    <div className="alert alert-error" role="alert">
      <strong>{reason}</strong>
      {error.message !== reason && <div>{error.message}</div>}
      <div className="code">{t('errors.code', { code: error.code })}</div>
    </div>
  );
}

/** The message of a settings issue of a 422 invalid_settings (`details.errors[{field, code, message}]`) at its field. */
export function settingsIssue(error: unknown, field: string): string | undefined {
  if (!isApiError(error) || error.code !== 'invalid_settings' || !Array.isArray(error.details.errors)) return undefined;
  const issue = (error.details.errors as Array<{ field?: string; message?: string }>).find((e) => e.field === field);
  return issue?.message;
}

/** Events per hour over the last 24 hours (the API's `trend`, oldest first), as a bar chart. */
export function TrendChart({ group, at }: { group: ErrorGroup; at: number }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  // Memoized: the chart is rebuilt only when the data changes (a new Date[] each render would rebuild it).
  const x = useMemo(() => {
    const hour = Math.floor(at / 3_600_000) * 3_600_000;
    return group.trend.map((_, i) => new Date(hour - (group.trend.length - 1 - i) * 3_600_000));
  }, [group.trend, at]);
  const series = useMemo(() => [{ label: t('proactive.group.events'), values: group.trend }], [group.trend, t]);
  return (
    <Chart
      title={t('proactive.group.trend')}
      x={x}
      series={series}
      kind="bars"
      height={180}
      formatTime={(d) => fmt.dateTime(d.toISOString())}
    />
  );
}

/** What the area's copy buttons say. */
export const copyTexts = (t: (k: string) => string) => ({
  button: t('proactive.copy'),
  copied: t('proactive.copied'),
  failed: t('proactive.copyFailed'),
});
