import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, data } from '../../api/client';
import { Button, ErrorAlert, Progress, useFormat } from '../../ui';
import { useOnboardingMutation, type Onboarding } from './use-onboarding';

const PHASES = ['choosing_case', 'indexing', 'reading_code', 'diagnosing', 'waiting_runner', 'fixing', 'done'] as const;

/** The last step: the demo (with consent for the managed sandbox) and its live progress, then finish. */
export function DoneStep({ onboarding }: { onboarding: Onboarding }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const navigate = useNavigate();
  const demo = onboarding.demo;
  const run = demo.run;
  const consent = useOnboardingMutation((c: 'granted' | 'refused') =>
    data(api.POST('/v1/onboarding/demo/consent', { body: { consent: c } })),
  );
  const start = useOnboardingMutation(() => data(api.POST('/v1/onboarding/demo')));
  const retry = useOnboardingMutation(async () => {
    await data(api.POST('/v1/onboarding/demo/retry'));
    return data(api.GET('/v1/onboarding'));
  });
  const complete = useOnboardingMutation(() => data(api.POST('/v1/onboarding/complete')));
  const phaseIndex = run ? Math.max(0, PHASES.indexOf(run.phase as (typeof PHASES)[number])) : 0;
  return (
    <div className="stack">
      <section className="stack" aria-labelledby="demo-title">
        <h3 id="demo-title">{t('onboarding.demo.title')}</h3>
        <p>{t('onboarding.demo.intro', { cap: fmt.usd(demo.cap_usd) })}</p>
        {!run && demo.consent_required && demo.consent !== 'granted' && (
          <div className="stack">
            <p>{t('onboarding.demo.consentText')}</p>
            <ErrorAlert error={consent.error} />
            <div className="row">
              <Button
                variant="primary"
                pending={consent.isPending && consent.variables === 'granted'}
                onClick={() => consent.mutate('granted')}
              >
                {t('onboarding.demo.consentYes')}
              </Button>
              <Button
                pending={consent.isPending && consent.variables === 'refused'}
                onClick={() => consent.mutate('refused')}
              >
                {t('onboarding.demo.consentNo')}
              </Button>
            </div>
          </div>
        )}
        {!run && demo.can_start && (
          <div className="stack">
            <ErrorAlert error={start.error} />
            <div>
              <Button variant="primary" pending={start.isPending} onClick={() => start.mutate(undefined)}>
                {t('onboarding.demo.start')}
              </Button>
            </div>
          </div>
        )}
        {!run && !demo.can_start && demo.start_blocker && (!demo.consent_required || demo.consent === 'granted') && (
          <p className="muted">
            {t(`onboarding.demo.blockers.${demo.start_blocker}`, { defaultValue: demo.start_blocker })}
          </p>
        )}
        {run && (
          <div className="stack" aria-live="polite">
            {run.done ? (
              <div className={`alert ${run.status === 'failed' ? 'alert-error' : 'alert-success'}`} role="status">
                {run.status === 'failed'
                  ? t('onboarding.demo.failed', { code: run.error?.code ?? '' })
                  : t('onboarding.demo.finished', {
                      outcome: t(`onboarding.demo.outcomes.${run.outcome ?? 'answer'}`),
                    })}
              </div>
            ) : (
              <Progress label={t(`onboarding.demo.phases.${run.phase}`)} value={phaseIndex} max={PHASES.length - 1} />
            )}
            {run.email && (
              <p>{t('onboarding.demo.email', { from: run.email.from_name, subject: run.email.subject })}</p>
            )}
            {run.diagnosis && (
              <div className="card">
                <h4>
                  {run.diagnosis.category === 'unknown'
                    ? t('onboarding.demo.diagnosisUnknown')
                    : t('onboarding.demo.diagnosis', {
                        confidence: fmt.number(run.diagnosis.confidence, { style: 'percent' }),
                      })}
                </h4>
                <p>{run.diagnosis.public_summary ?? run.diagnosis.root_cause_md}</p>
              </div>
            )}
            {run.done && run.retry.allowed && (
              <div>
                <Button pending={retry.isPending} onClick={() => retry.mutate(undefined)}>
                  {t('onboarding.demo.retry')}
                </Button>
              </div>
            )}
            <ErrorAlert error={retry.error} />
          </div>
        )}
      </section>
      <ErrorAlert error={complete.error} />
      <div>
        <Button
          variant="primary"
          pending={complete.isPending}
          onClick={() => complete.mutate(undefined, { onSuccess: () => void navigate('/tickets') })}
        >
          {t('onboarding.finish')}
        </Button>
      </div>
    </div>
  );
}
