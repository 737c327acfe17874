import { useTranslation } from 'react-i18next';

/**
 * A part of the section the plan does not include: why (the API's 402 `feature_not_in_plan`
 * would say the same) and which plan has it, instead of forms that would only fail.
 */
export function Locked({
  title,
  feature,
  plan,
}: {
  title: string;
  feature: 'sso' | 'approval_governance';
  plan: string;
}) {
  const { t } = useTranslation();
  const id = `locked-${feature}`;
  return (
    <section className="card stack" aria-labelledby={id}>
      <div className="spread">
        <h2 id={id}>{title}</h2>
        <span className="badge">{t('security.locked.badge')}</span>
      </div>
      <div className="alert alert-info" role="note">
        <strong>{t('security.locked.title')}</strong>
        <div>{t(`security.locked.${feature}`, { plan: t(`security.plans.${plan}`, { defaultValue: plan }) })}</div>
        <div className="muted">{t('security.locked.code')}</div>
      </div>
    </section>
  );
}
