import { useEffect, useRef } from 'react';
import type { UseMutationResult } from '@tanstack/react-query';

/**
 * Runs a single-use link's action once when its page opens (emailed tokens are single use:
 * a second call, e.g. React's development double effect, would fail).
 */
export function useTokenAction<T>(token: string | null, mutation: UseMutationResult<T, Error, string>) {
  const done = useRef<string | null>(null);
  useEffect(() => {
    if (!token || done.current === token) return;
    done.current = token;
    mutation.mutate(token);
  }, [token, mutation]);
}
