import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data } from '../../api/client';
import { ErrorAlert, Form, FormActions, TextField, fieldError } from '../../ui';
import { useOnboardingMutation } from './use-onboarding';

/** Before the steps: the workspace the wizard sets up (a new organization has none yet). */
export function WorkspaceStep() {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const create = useOnboardingMutation(async (workspaceName: string) => {
    const ws = await data(api.POST('/v1/workspaces', { body: { name: workspaceName } }));
    return data(api.POST('/v1/onboarding/workspace', { body: { workspace_id: ws.id } }));
  });
  const submit = () => {
    create.mutate(name);
  };
  return (
    <div className="stack">
      <h1>{t('onboarding.title')}</h1>
      <section className="card stack" aria-labelledby="ws-title">
        <h2 id="ws-title">{t('onboarding.workspaceStep.title')}</h2>
        <p>{t('onboarding.workspaceStep.intro')}</p>
        <ErrorAlert error={create.error} fields={['name']} />
        <Form className="stack" onSubmit={submit}>
          <TextField
            label={t('onboarding.workspaceStep.name')}
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={fieldError(create.error, 'name')}
          />
          <FormActions submit={t('onboarding.workspaceStep.submit')} pending={create.isPending} />
        </Form>
      </section>
    </div>
  );
}
