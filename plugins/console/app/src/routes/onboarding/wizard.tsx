import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, ErrorState, LoadingState } from '../../ui';
import { AgentStep } from './step-agent';
import { DoneStep } from './step-done';
import { OptionalStep } from './step-optional';
import { RepositoryStep } from './step-repository';
import { WorkspaceStep } from './step-workspace';
import { useOnboarding, useStepAction, type StepId } from './use-onboarding';

type View = StepId | 'done';

/** /onboarding: repository → channels → agent → logs → done; optional steps can be skipped, any step reopened. */
export default function Wizard() {
  const { t } = useTranslation();
  const state = useOnboarding();
  const [chosen, setChosen] = useState<View | null>(null);
  const step = useStepAction();
  if (state.isPending) return <LoadingState />;
  if (state.isError) return <ErrorState error={state.error} retry={() => void state.refetch()} />;
  const ob = state.data;
  if (!ob.workspace) return <WorkspaceStep />;
  const view: View = chosen ?? ob.current;
  const info = ob.steps.find((s) => s.id === view);
  const order: View[] = ['repository', 'channels', 'agent', 'logs', 'done'];
  const go = (v: View) => setChosen(v);
  const next = () => setChosen(null);
  return (
    <div className="stack">
      <div className="spread">
        <h1>{t('onboarding.title')}</h1>
        <span className="muted">{t('onboarding.workspace', { name: ob.workspace.name })}</span>
      </div>
      <nav aria-label={t('onboarding.stepsLabel')}>
        <ol className="steps">
          {order.map((id) => {
            const s = ob.steps.find((x) => x.id === id);
            const available = id === 'done' ? true : (s?.available ?? false);
            const status = s ? t(`onboarding.status.${s.status}`) : '';
            return (
              <li
                key={id}
                aria-current={view === id ? 'step' : undefined}
                className={s?.status === 'done' ? 'done' : undefined}
              >
                <button type="button" className="btn-link btn" disabled={!available} onClick={() => go(id)}>
                  {t(`onboarding.steps.${id}`)}
                </button>
                {status && <span className="visually-hidden"> ({status})</span>}
                {s?.status === 'done' && <span aria-hidden="true"> ✓</span>}
              </li>
            );
          })}
        </ol>
      </nav>
      <section className="card stack" aria-labelledby="step-title">
        <h2 id="step-title">{t(`onboarding.steps.${view}`)}</h2>
        {info && info.status !== 'todo' && (
          <div className="spread">
            <span className="badge">{t(`onboarding.status.${info.status}`)}</span>
            <Button
              pending={step.isPending}
              onClick={() => step.mutate({ step: info.id, action: 'reopen' }, { onSuccess: () => go(info.id) })}
            >
              {t('onboarding.reopen')}
            </Button>
          </div>
        )}
        {view === 'repository' && <RepositoryStep onboarding={ob} onDone={next} />}
        {view === 'channels' && <OptionalStep id="channels" onboarding={ob} onDone={next} />}
        {view === 'agent' && <AgentStep onboarding={ob} onDone={next} />}
        {view === 'logs' && <OptionalStep id="logs" onboarding={ob} onDone={next} />}
        {view === 'done' && <DoneStep onboarding={ob} />}
      </section>
    </div>
  );
}
