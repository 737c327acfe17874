import { isRouteErrorResponse, useRouteError } from 'react-router';
import { useTranslation } from 'react-i18next';
import { ErrorState } from '../ui';
import { Logo } from './logo';

/** What a page that failed to render or load shows: the error, never a blank page. */
export function RouteError() {
  const error = useRouteError();
  const { t } = useTranslation();
  const shown = isRouteErrorResponse(error) ? new Error(`${error.status} ${error.statusText}`) : error;
  return (
    <div className="auth-page">
      <Logo />
      <main className="card auth-card">
        <ErrorState error={shown} retry={() => window.location.reload()} />
        <p>
          <a href="/">{t('common.home')}</a>
        </p>
      </main>
    </div>
  );
}
