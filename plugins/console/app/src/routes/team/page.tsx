import { useTranslation } from 'react-i18next';
import { useMe } from '../../queries/session';
import { LoadingState } from '../../ui';
import { Invitations } from './invitations';
import { Members } from './members';
import '../workspaces/workspaces.css';

/** /team: members (owners, admins, reviewers read it) and, for owners and admins, invitations. */
export default function Team() {
  const { t } = useTranslation();
  const me = useMe().data;
  if (!me) return <LoadingState />;
  const admin = me.user.role === 'owner' || me.user.role === 'admin';
  return (
    <div className="stack">
      <h1>{t('team.title')}</h1>
      <p className="muted">{t('team.intro')}</p>
      <Members />
      {admin && <Invitations />}
    </div>
  );
}
