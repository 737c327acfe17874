import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data } from '../../api/client';
import type { RequestBody } from '../../api/types';
import { CheckboxField, Form, FormActions, SelectField, TextField, fieldError } from '../../ui';
import { AgentChoiceFields, ExecutionError, MODES, type Transport } from './execution-fields';
import { useOnboardingMutation, type Onboarding } from './use-onboarding';

type AgentBody = RequestBody<'/v1/onboarding/agent', 'post'>;
const ANSWERS: AgentBody['answer'][] = [
  'no_agent',
  'api_key_only',
  'agent_1_api',
  'agent_1_subscription',
  'agent_2',
  'ide_agent',
];

/**
 * The agent step: who runs diagnoses and fixes, and where. A forbidden combination answers 422
 * `forbidden_combination` with `details.message` and `details.suggestion` in the person's
 * language: shown as the API wrote them.
 */
export function AgentStep({ onboarding, onDone }: { onboarding: Onboarding; onDone: () => void }) {
  const { t } = useTranslation();
  const ws = onboarding.workspace!;
  const prior = onboarding.agent;
  const priorTransport: Transport = prior?.transport ?? ws.runner_transport ?? '';
  const [form, setForm] = useState({
    answer: prior?.answer ?? 'no_agent',
    mode: prior?.mode ?? ws.execution_mode,
    agent: prior?.agent ?? ws.agent_id,
    auth: prior?.auth ?? ws.auth_method ?? 'api-key',
    transport: priorTransport,
    agent_key: '',
    credential_later: true,
  });
  const save = useOnboardingMutation((body: AgentBody) => data(api.POST('/v1/onboarding/agent', { body })));
  const set = <K extends keyof typeof form>(k: K, v: (typeof form)[K]) => setForm((f) => ({ ...f, [k]: v }));
  const submit = () => {
    const { transport, agent_key, ...rest } = form;
    save.mutate(
      { ...rest, transport: transport || null, ...(agent_key ? { agent_key, credential_later: false } : {}) },
      { onSuccess: onDone },
    );
  };
  return (
    <Form className="stack" onSubmit={submit}>
      <p>{t('onboarding.agent.intro')}</p>
      <ExecutionError error={save.error} fields={['mode', 'agent', 'auth', 'transport', 'agent_key', 'answer']} />
      <SelectField
        label={t('onboarding.agent.answer')}
        value={form.answer}
        onChange={(e) => set('answer', e.target.value as AgentBody['answer'])}
      >
        {ANSWERS.map((a) => (
          <option key={a} value={a}>
            {t(`onboarding.agent.answers.${a}`)}
          </option>
        ))}
      </SelectField>
      <fieldset className="stack">
        <legend>{t('onboarding.agent.settings')}</legend>
        <SelectField
          label={t('onboarding.agent.mode')}
          value={form.mode}
          onChange={(e) => set('mode', e.target.value as AgentBody['mode'])}
          error={fieldError(save.error, 'mode')}
          hint={t(`onboarding.agent.modeHints.${form.mode}`)}
        >
          {MODES.map((m) => (
            <option key={m} value={m}>
              {t(`onboarding.agent.modes.${m}`)}
            </option>
          ))}
        </SelectField>
        <AgentChoiceFields value={form} onChange={(p) => setForm((f) => ({ ...f, ...p }))} error={save.error} />
        <TextField
          label={t('onboarding.agent.key')}
          type="password"
          autoComplete="off"
          value={form.agent_key}
          hint={t('onboarding.agent.keyHint')}
          onChange={(e) => set('agent_key', e.target.value)}
          error={fieldError(save.error, 'agent_key')}
        />
        <CheckboxField
          label={t('onboarding.agent.later')}
          checked={form.credential_later && !form.agent_key}
          disabled={!!form.agent_key}
          onChange={(e) => set('credential_later', e.target.checked)}
        />
      </fieldset>
      <FormActions submit={t('onboarding.agent.submit')} pending={save.isPending} />
    </Form>
  );
}
