import { Suspense, useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import { NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, data } from '../api/client';
import { isApiError } from '../api/errors';
import { setLocale, type Locale } from '../i18n';
import { brandQuery } from '../queries/brand';
import { useMe, useSetSession, useSignOut, type AuthContext } from '../queries/session';
import { WorkspaceContext, storeWorkspace, storedWorkspace } from '../queries/workspaces';
import { Button, ErrorState, LoadingState, SelectField, applyBrandColor, useToast } from '../ui';
import { LocaleSwitch } from './locale-switch';
import { Logo } from './logo';
import { ThemeSwitch } from './theme-switch';

/** The signed-in part of the console: waits for GET /v1/auth/me, then the shell. */
export function RequireSession() {
  const me = useMe();
  const { t } = useTranslation();
  if (me.isPending) return <LoadingState />;
  // A 401 has already sent the person to sign-in (api/client.ts); anything else is shown.
  if (me.isError && isApiError(me.error) && me.error.status === 401)
    return <LoadingState label={t('auth.redirecting')} />;
  if (me.isError) return <ErrorState error={me.error} retry={() => void me.refetch()} />;
  return <Shell me={me.data} />;
}

const canAdminister = (me: AuthContext) => me.user.role === 'owner' || me.user.role === 'admin';

function Shell({ me }: { me: AuthContext }) {
  const { t } = useTranslation();
  const location = useLocation();
  const mainRef = useRef<HTMLElement>(null);
  const [navOpen, setNavOpen] = useState(false);
  const workspaces = useMemo(() => me.workspaces.filter((w) => !w.archived_at), [me.workspaces]);
  const [workspaceId, setWorkspace] = useState<string | null>(() => {
    const stored = storedWorkspace();
    return workspaces.find((w) => w.id === stored)?.id ?? workspaces[0]?.id ?? null;
  });
  const current = workspaces.some((w) => w.id === workspaceId) ? workspaceId : (workspaces[0]?.id ?? null);
  const workspace = useMemo(
    () => ({
      workspaceId: current,
      setWorkspaceId: (id: string) => {
        storeWorkspace(id);
        setWorkspace(id);
      },
    }),
    [current],
  );

  // The profile's language wins over the browser's.
  useEffect(() => {
    void setLocale(me.user.locale);
  }, [me.user.locale]);

  // Owners and admins see the workspace's brand color (the brand API is theirs).
  const brand = useQuery({ ...brandQuery(), enabled: canAdminister(me) });
  useEffect(() => {
    const ws = brand.data?.workspaces.find((w) => w.id === current);
    const profile =
      brand.data?.profiles.find((p) => p.id === ws?.effective_profile_id) ??
      brand.data?.profiles.find((p) => p.is_default);
    applyBrandColor(profile?.primary_color_effective ?? null);
  }, [brand.data, current]);

  // After a navigation, focus goes to the page (screen readers hear the new page; Tab starts there).
  const first = useRef(true);
  useEffect(() => {
    setNavOpen(false);
    if (first.current) {
      first.current = false;
      return;
    }
    mainRef.current?.focus();
  }, [location.pathname]);

  return (
    <WorkspaceContext.Provider value={workspace}>
      <div className={`shell${navOpen ? ' nav-open' : ''}`}>
        <a className="skip-link" href="#main">
          {t('common.skipToContent')}
        </a>
        <aside className="sidebar" id="sidebar" aria-label={t('nav.label')}>
          <Logo />
          <nav className="nav" aria-label={t('nav.label')}>
            {/* Grouped as people look for things: the daily work, the settings of the product, their own. */}
            <NavGroup label={t('nav.groups.work')}>
              <NavLink to="/tickets">{t('nav.tickets')}</NavLink>
              {me.organization.approval_roles.includes(me.user.role) && (
                <NavLink to="/approvals">{t('approvals.nav')}</NavLink>
              )}
              <NavLink to="/analytics">{t('nav.analytics')}</NavLink>
              <NavLink to="/error-groups">{t('nav.errorGroups')}</NavLink>
              <NavLink to="/releases">{t('nav.releases')}</NavLink>
            </NavGroup>
            {canAdminister(me) && (
              <NavGroup label={t('nav.groups.settings')}>
                <NavLink to="/onboarding">{t('nav.onboarding')}</NavLink>
                <NavLink to="/workspaces">{t('nav.workspaces')}</NavLink>
                <NavLink to="/audit">{t('nav.audit')}</NavLink>
                <NavLink to="/privacy">{t('nav.privacy')}</NavLink>
                <NavLink to="/billing">{t('nav.billing')}</NavLink>
                {me.organization.type === 'agency' && <NavLink to="/agency">{t('nav.agency')}</NavLink>}
                <NavLink to="/proactive">{t('nav.proactive')}</NavLink>
                <NavLink to="/settings/inbox">{t('nav.inbox')}</NavLink>
                <NavLink to="/settings/code">{t('nav.code')}</NavLink>
                <NavLink to="/settings/organization">{t('nav.organization')}</NavLink>
                <NavLink to="/security">{t('nav.security')}</NavLink>
                <NavLink to="/brand">{t('nav.brand')}</NavLink>
              </NavGroup>
            )}
            {me.staff && (
              <NavGroup label={t('nav.groups.operator')}>
                <NavLink to="/staff/organizations">{t('nav.staffOrganizations')}</NavLink>
                <NavLink to="/staff/claims">{t('nav.staffClaims')}</NavLink>
                <NavLink to="/staff/onboarding">{t('nav.staffOnboarding')}</NavLink>
              </NavGroup>
            )}
            <NavGroup label={t('nav.groups.you')}>
              {me.user.role !== 'client_viewer' && <NavLink to="/team">{t('nav.team')}</NavLink>}
              {/* Reviewers read the plan and credits; owners and admins find Billing under settings. */}
              {me.user.role === 'reviewer' && <NavLink to="/billing">{t('nav.billing')}</NavLink>}
              <NavLink to="/settings/profile">{t('nav.profile')}</NavLink>
              <NavLink to="/settings/tokens">{t('nav.tokens')}</NavLink>
            </NavGroup>
          </nav>
        </aside>
        <div className="main">
          <header className="topbar">
            <div className="row">
              <Button
                className="menu-toggle"
                aria-expanded={navOpen}
                aria-controls="sidebar"
                onClick={() => setNavOpen((o) => !o)}
              >
                {t('nav.menu')}
              </Button>
              {workspaces.length > 0 && (
                <WorkspaceSwitcher workspaces={workspaces} value={current} onChange={workspace.setWorkspaceId} />
              )}
            </div>
            <UserMenu me={me} />
          </header>
          {!me.user.email_verified_at && <VerifyBanner />}
          <main id="main" className="content" ref={mainRef} tabIndex={-1}>
            <Suspense fallback={<LoadingState />}>
              <Outlet />
            </Suspense>
          </main>
        </div>
      </div>
    </WorkspaceContext.Provider>
  );
}

/** A labelled group of links in the sidebar (a heading for screen readers and eyes alike). */
function NavGroup({ label, children }: { label: string; children: ReactNode }) {
  const id = useId();
  return (
    <div className="nav-group" role="group" aria-labelledby={id}>
      <div className="nav-group-label" id={id}>
        {label}
      </div>
      {children}
    </div>
  );
}

function WorkspaceSwitcher({
  workspaces,
  value,
  onChange,
}: {
  workspaces: AuthContext['workspaces'];
  value: string | null;
  onChange: (id: string) => void;
}) {
  const { t } = useTranslation();
  return (
    <SelectField
      label={<span className="visually-hidden">{t('nav.workspace')}</span>}
      value={value ?? ''}
      onChange={(e) => onChange(e.target.value)}
    >
      {workspaces.map((w) => (
        <option key={w.id} value={w.id}>
          {w.client_name ? `${w.name} (${w.client_name})` : w.name}
        </option>
      ))}
    </SelectField>
  );
}

function UserMenu({ me }: { me: AuthContext }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const toast = useToast();
  const setSession = useSetSession();
  const signOut = useSignOut();
  const [open, setOpen] = useState(false);
  const panel = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const saveLocale = useMutation({
    mutationFn: (locale: Locale) => data(api.PATCH('/v1/me', { body: { locale } })),
    onSuccess: setSession,
    onError: (e) => toast.error(e),
  });
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        setOpen(false);
        button.current?.focus();
      }
    };
    const onClick = (e: MouseEvent) => {
      if (!panel.current?.contains(e.target as Node) && !button.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('mousedown', onClick);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('mousedown', onClick);
    };
  }, [open]);
  return (
    <div className="menu">
      <Button ref={button} aria-expanded={open} aria-controls="user-menu" onClick={() => setOpen((o) => !o)}>
        {t('nav.account', { name: me.user.name })}
      </Button>
      {open && (
        <div className="menu-panel" id="user-menu" ref={panel}>
          <div>
            <strong>{me.user.name}</strong>
            <div className="muted">{me.user.email}</div>
            <div className="muted">
              {me.organization.name} · {t(`roles.${me.user.role}`)}
            </div>
          </div>
          <LocaleSwitch onChange={(l) => saveLocale.mutate(l)} />
          <ThemeSwitch />
          <Button
            onClick={() => {
              setOpen(false);
              void navigate('/settings/profile');
            }}
          >
            {t('nav.profile')}
          </Button>
          <Button
            variant="primary"
            pending={signOut.isPending}
            onClick={() =>
              signOut.mutate(undefined, {
                onSuccess: () => void navigate('/login', { replace: true }),
                onError: (e) => toast.error(e),
              })
            }
          >
            {t('auth.signOut')}
          </Button>
        </div>
      )}
    </div>
  );
}

function VerifyBanner() {
  const { t } = useTranslation();
  const toast = useToast();
  const resend = useMutation({
    mutationFn: () => data(api.POST('/v1/auth/verify-email/resend')),
    onSuccess: () => toast.success(t('auth.verify.resent')),
    onError: (e) => toast.error(e),
  });
  return (
    <div role="note" className="alert alert-warning banner">
      <div className="spread">
        <span>{t('auth.verify.banner')}</span>
        <Button pending={resend.isPending} onClick={() => resend.mutate()}>
          {t('auth.verify.resend')}
        </Button>
      </div>
    </div>
  );
}
