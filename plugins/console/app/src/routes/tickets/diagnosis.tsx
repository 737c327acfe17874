import { useTranslation } from 'react-i18next';
import type { Ticket } from '../../queries/tickets';
import { useFormat } from '../../ui';
import { Card, Prose } from './card';

/** The latest diagnosis: category, confidence, the cause for the team, and where in the code. */
export function Diagnosis({ ticket }: { ticket: Ticket }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const dx = ticket.diagnosis;
  if (!dx) {
    // The fix loop may be off (fixes null); otherwise the diagnosis is on its way.
    if (ticket.fixes === null) return null;
    return (
      <Card title={t('ticket.diagnosis.title')}>
        <p className="muted">{t('ticket.diagnosis.none')}</p>
      </Card>
    );
  }
  return (
    <Card title={t('ticket.diagnosis.title')}>
      <dl className="facts">
        <dt>{t('inbox.category')}</dt>
        <dd>{t(`inbox.categories.${dx.category}`)}</dd>
        {dx.category !== 'unknown' && (
          <>
            <dt>{t('ticket.diagnosis.confidence')}</dt>
            <dd>{fmt.number(dx.confidence, { style: 'percent' })}</dd>
          </>
        )}
        <dt>{t('ticket.diagnosis.outcome')}</dt>
        <dd>{t(`ticket.diagnosis.outcomes.${dx.outcome}`)}</dd>
        {dx.language && (
          <>
            <dt>{t('ticket.diagnosis.language')}</dt>
            <dd>{t(`common.locales.${dx.language}`, { defaultValue: dx.language })}</dd>
          </>
        )}
        {dx.history_count > 1 && (
          <>
            <dt>{t('ticket.diagnosis.history')}</dt>
            <dd>{fmt.number(dx.history_count)}</dd>
          </>
        )}
      </dl>
      <h3>{t('ticket.diagnosis.rootCause')}</h3>
      <Prose text={dx.root_cause_md} />
      {dx.references.length > 0 && (
        <>
          <h3>{t('ticket.diagnosis.references')}</h3>
          <ul className="references">
            {dx.references.map((r, i) => {
              const lines = r.line_start
                ? r.line_end && r.line_end !== r.line_start
                  ? `${r.line_start}–${r.line_end}`
                  : `${r.line_start}`
                : '';
              const label = `${r.path}${lines ? `:${lines}` : ''}`;
              return (
                <li key={`${r.path}-${i}`}>
                  {r.url ? (
                    <a href={r.url} target="_blank" rel="noreferrer">
                      <code>{label}</code>
                    </a>
                  ) : (
                    <code>{label}</code>
                  )}
                  {r.symbol && <span className="muted"> · {r.symbol}</span>}
                </li>
              );
            })}
          </ul>
        </>
      )}
      {dx.public_summary && (
        <>
          <h3>{t('ticket.diagnosis.publicSummary')}</h3>
          <p>{dx.public_summary}</p>
        </>
      )}
    </Card>
  );
}
