import { useTranslation } from 'react-i18next';
import { Button, ErrorAlert } from '../../ui';
import { useStepAction, type Onboarding } from './use-onboarding';

/** The optional steps: channels (forward support mail to the workspace's address) and logs. */
export function OptionalStep({
  id,
  onboarding,
  onDone,
}: {
  id: 'channels' | 'logs';
  onboarding: Onboarding;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const step = useStepAction();
  const address = onboarding.workspace?.inbound_address;
  return (
    <div className="stack">
      <p>{t(`onboarding.${id}.intro`)}</p>
      {id === 'channels' && address && (
        <p>
          {t('onboarding.channels.address')} <code>{address}</code>
        </p>
      )}
      <ErrorAlert error={step.error} />
      <div className="row">
        <Button
          variant="primary"
          pending={step.isPending && step.variables?.action === 'complete'}
          onClick={() => step.mutate({ step: id, action: 'complete' }, { onSuccess: onDone })}
        >
          {t('onboarding.markDone')}
        </Button>
        <Button
          pending={step.isPending && step.variables?.action === 'skip'}
          onClick={() => step.mutate({ step: id, action: 'skip' }, { onSuccess: onDone })}
        >
          {t('onboarding.skip')}
        </Button>
      </div>
    </div>
  );
}
