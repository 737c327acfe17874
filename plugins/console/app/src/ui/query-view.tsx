import type { ComponentType, ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { ErrorState } from './errors';
import { LoadingState } from './states';

/**
 * A query's three states in one place: the spinner while it loads, the error with "Try again" when it
 * failed (also a failed refetch), else its data handed to `children`. `failed` replaces ErrorState
 * where an area explains some refusals in words (the agency's 402).
 */
export function QueryView<T>({
  query,
  children,
  failed: Failed = ErrorState,
}: {
  query: UseQueryResult<T>;
  children: (data: T) => ReactNode;
  failed?: ComponentType<{ error: unknown; retry: () => void }>;
}) {
  if (query.isPending) return <LoadingState />;
  if (query.isError) return <Failed error={query.error} retry={() => void query.refetch()} />;
  return children(query.data);
}
