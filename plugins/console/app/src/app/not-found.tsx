import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../ui';

export default function NotFound() {
  const { t } = useTranslation();
  return (
    <EmptyState title={t('notFound.title')}>
      <p>{t('notFound.body')}</p>
      <Link to="/">{t('common.home')}</Link>
    </EmptyState>
  );
}
