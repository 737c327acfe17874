import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { isApiError } from '../../api/errors';
import type { RequestBody } from '../../api/types';
import { ErrorAlert, SelectField, fieldError } from '../../ui';

type Choice = RequestBody<'/v1/onboarding/agent', 'post'>;
export type Transport = '' | 'github_actions' | 'container';
export const MODES: Choice['mode'][] = ['managed', 'runner', 'mcp'];
export const AGENTS: Choice['agent'][] = [
  'builtin',
  'other',
  'agent_1',
  'agent_2',
  'agent_3',
  'agent_4',
  'agent_5',
  'agent_6',
  'agent_7',
  'agent_8',
  'agent_9',
  'agent_10',
  'agent_11',
];
export const AUTHS: Choice['auth'][] = ['api-key', 'account_login', 'cloud_a', 'cloud_b', 'subscription'];

/** An agent's name in the person's language. */
export const agentLabel = (t: TFunction, a: Choice['agent']) =>
  a === 'builtin' || a === 'other'
    ? t(`onboarding.agent.agents.${a}`)
    : t('onboarding.agent.agentN', { n: a.split('_')[1] });

export interface AgentChoice {
  agent: Choice['agent'];
  auth: Choice['auth'];
  transport: Transport;
}

/**
 * Agent, sign-in and transport: the choices the wizard's agent step and the code settings share
 * (both send them to the same rules).
 */
export function AgentChoiceFields({
  value,
  onChange,
  error,
}: {
  value: AgentChoice;
  onChange: (patch: Partial<AgentChoice>) => void;
  error: unknown;
}) {
  const { t } = useTranslation();
  return (
    <>
      <SelectField
        label={t('onboarding.agent.agent')}
        value={value.agent}
        onChange={(e) => onChange({ agent: e.target.value as Choice['agent'] })}
        error={fieldError(error, 'agent')}
      >
        {AGENTS.map((a) => (
          <option key={a} value={a}>
            {agentLabel(t, a)}
          </option>
        ))}
      </SelectField>
      <SelectField
        label={t('onboarding.agent.auth')}
        value={value.auth}
        onChange={(e) => onChange({ auth: e.target.value as Choice['auth'] })}
        error={fieldError(error, 'auth')}
      >
        {AUTHS.map((a) => (
          <option key={a} value={a}>
            {t(`onboarding.agent.auths.${a}`)}
          </option>
        ))}
      </SelectField>
      <SelectField
        label={t('onboarding.agent.transport')}
        value={value.transport}
        onChange={(e) => onChange({ transport: e.target.value as Transport })}
        error={fieldError(error, 'transport')}
      >
        <option value="">{t('onboarding.agent.transports.none')}</option>
        <option value="github_actions">{t('onboarding.agent.transports.github_actions')}</option>
        <option value="container">{t('onboarding.agent.transports.container')}</option>
      </SelectField>
    </>
  );
}

/**
 * A failed save of execution choices: a 422 `forbidden_combination` carries `details.message` and
 * `details.suggestion` in the person's language, shown as the API wrote them; anything else as usual.
 */
export function ExecutionError({ error, fields }: { error: unknown; fields: string[] }) {
  if (!(isApiError(error) && error.code === 'forbidden_combination'))
    return <ErrorAlert error={error} fields={fields} />;
  const d = error.details;
  return (
    <div className="alert alert-error" role="alert">
      <strong>{typeof d.message === 'string' ? d.message : error.message}</strong>
      {typeof d.suggestion === 'string' && <p>{d.suggestion}</p>}
    </div>
  );
}
