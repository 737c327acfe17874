import { Navigate } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { onboardingQuery } from '../queries/onboarding';
import { useMe } from '../queries/session';
import { ErrorState, LoadingState } from '../ui';

/** `/`: owners and admins finish onboarding first; everyone else starts at the tickets. */
export default function Home() {
  const me = useMe();
  const admin = me.data?.user.role === 'owner' || me.data?.user.role === 'admin';
  const onboarding = useQuery({ ...onboardingQuery(), enabled: admin });
  if (!admin) return <Navigate to="/tickets" replace />;
  if (onboarding.isPending) return <LoadingState />;
  if (onboarding.isError) return <ErrorState error={onboarding.error} retry={() => void onboarding.refetch()} />;
  return <Navigate to={onboarding.data.current === 'done' ? '/tickets' : '/onboarding'} replace />;
}
