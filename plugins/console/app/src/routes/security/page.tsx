import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { useMe } from '../../queries/session';
import { securityQuery } from '../../queries/security';
import { QueryView } from '../../ui';
import { Connections } from './connections';
import { Domains } from './domains';
import { Enforcement, ReleaseAddress } from './enforcement';
import { GovernanceSection } from './governance';
import { Locked } from './locked';
import '../workspaces/workspaces.css';
import './security.css';

/**
 * /security (owners and admins): single sign-on (connections, domains, enforcement, recovery
 * codes, released addresses) and approval governance. Owners change them; admins read, rename
 * and test connections (the spec's roles).
 */
export default function SecurityPage() {
  const { t } = useTranslation();
  const me = useMe();
  const security = useQuery(securityQuery());
  const owner = me.data?.user.role === 'owner';
  const plan = me.data?.organization.plan ?? '';
  return (
    <div className="stack">
      <h1>{t('security.title')}</h1>
      <p className="muted">{t('security.intro')}</p>
      <QueryView query={security}>
        {(s) => (
          <>
            {s.sso.available ? (
              <>
                <Connections sso={s.sso} owner={owner} />
                <Domains sso={s.sso} owner={owner} />
                <Enforcement sso={s.sso} owner={owner} />
                {owner && <ReleaseAddress />}
              </>
            ) : (
              <Locked title={t('security.sso.title')} feature="sso" plan={plan} />
            )}
            {s.governance.available ? (
              <GovernanceSection governance={s.governance} owner={owner} />
            ) : (
              <Locked title={t('security.governance.title')} feature="approval_governance" plan={plan} />
            )}
          </>
        )}
      </QueryView>
    </div>
  );
}
