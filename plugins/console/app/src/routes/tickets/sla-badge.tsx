import { useTranslation } from 'react-i18next';
import { useFormat } from '../../ui';

const SOON_MS = 60 * 60 * 1000;

/** Where the ticket stands against its SLA due time (sla_due_at): overdue, due soon, or due in… */
export function SlaBadge({ due, now = Date.now() }: { due: string | null; now?: number }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  if (!due) return null;
  const left = new Date(due).getTime() - now;
  const kind = left < 0 ? 'overdue' : left < SOON_MS ? 'soon' : 'ok';
  const text =
    kind === 'overdue'
      ? t('inbox.sla.overdue', { when: fmt.relative(due, now) })
      : t('inbox.sla.due', { when: fmt.relative(due, now) });
  return (
    <span className={`badge sla-${kind}`} title={fmt.dateTime(due)}>
      {text}
    </span>
  );
}
