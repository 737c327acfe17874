import { Suspense } from 'react';
import { Outlet } from 'react-router';
import { useTranslation } from 'react-i18next';
import { LoadingState } from '../ui';
import { LocaleSwitch } from './locale-switch';
import { ThemeSwitch } from './theme-switch';
import { Logo } from './logo';

/** The frame of the pages people open from emails and before signing in. */
export function AuthLayout() {
  const { t } = useTranslation();
  return (
    <div className="auth-page">
      <a className="skip-link" href="#main">
        {t('common.skipToContent')}
      </a>
      <header>
        <Logo />
      </header>
      <main id="main" className="card auth-card" tabIndex={-1}>
        <Suspense fallback={<LoadingState />}>
          <Outlet />
        </Suspense>
      </main>
      <footer className="auth-footer">
        <LocaleSwitch />
        <ThemeSwitch />
      </footer>
    </div>
  );
}
