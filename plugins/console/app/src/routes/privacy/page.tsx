import { useTranslation } from 'react-i18next';
import { useMe } from '../../queries/session';
import { LoadingState } from '../../ui';
import { Closure } from './closure';
import { Erasure } from './erasure';
import { Export } from './export';
import '../workspaces/workspaces.css';

/** /privacy: the organization's data export and closure (owners), an end user's erasure (owners and admins). */
export default function Privacy() {
  const { t } = useTranslation();
  const me = useMe().data;
  if (!me) return <LoadingState />;
  const owner = me.user.role === 'owner';
  return (
    <div className="stack">
      <h1>{t('privacy.title')}</h1>
      <p className="muted">{t('privacy.intro')}</p>
      {owner && <Export email={me.user.email} />}
      <Erasure />
      {owner && <Closure slug={me.organization.slug} name={me.organization.name} />}
    </div>
  );
}
