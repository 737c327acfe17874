import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { Schema } from '../../api/types';
import { onboardingKeys, onboardingQuery } from '../../queries/onboarding';
import { authKeys } from '../../queries/session';

export type Onboarding = Schema<'Onboarding'>;
export type StepId = Onboarding['steps'][number]['id'];

/** The wizard's state; polled every 2 s while a demo runs (its progress is live). */
export function useOnboarding() {
  return useQuery({
    ...onboardingQuery(),
    refetchInterval: (q) => (q.state.data?.demo.run && !q.state.data.demo.run.done ? 2000 : false),
  });
}

/** A mutation whose answer is the new Onboarding state: the cache takes it. */
export function useOnboardingMutation<V>(fn: (vars: V) => Promise<Onboarding>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: (state) => {
      client.setQueryData(onboardingKeys.state(), state);
      void client.invalidateQueries({ queryKey: authKeys.me() });
    },
  });
}

/** complete / skip / reopen of one step. */
export function useStepAction() {
  return useOnboardingMutation(({ step, action }: { step: StepId; action: 'complete' | 'skip' | 'reopen' }) =>
    data(api.POST('/v1/onboarding/steps/{step}', { params: { path: { step } }, body: { action } })),
  );
}
