import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data } from '../../api/client';
import { Button, ErrorAlert, TextField, fieldError } from '../../ui';
import { useOnboardingMutation } from './use-onboarding';

/** Before the steps: the workspace the wizard sets up (a new organization has none yet). */
export function WorkspaceStep() {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const create = useOnboardingMutation(async (workspaceName: string) => {
    const ws = await data(api.POST('/v1/workspaces', { body: { name: workspaceName } }));
    return data(api.POST('/v1/onboarding/workspace', { body: { workspace_id: ws.id } }));
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(name);
  };
  return (
    <div className="stack">
      <h1>{t('onboarding.title')}</h1>
      <section className="card stack" aria-labelledby="ws-title">
        <h2 id="ws-title">{t('onboarding.workspaceStep.title')}</h2>
        <p>{t('onboarding.workspaceStep.intro')}</p>
        <ErrorAlert error={create.error} fields={['name']} />
        <form className="stack" onSubmit={submit} noValidate>
          <TextField
            label={t('onboarding.workspaceStep.name')}
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={fieldError(create.error, 'name')}
          />
          <div>
            <Button type="submit" variant="primary" pending={create.isPending}>
              {t('onboarding.workspaceStep.submit')}
            </Button>
          </div>
        </form>
      </section>
    </div>
  );
}
