import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { RequestBody } from '../../api/types';
import { codeKeys, ossQuery, type OssSettings } from '../../queries/code';
import {
  CheckboxField,
  ErrorAlert,
  Form,
  FormActions,
  QueryView,
  SelectField,
  TextField,
  fieldError,
  useFormat,
  useToast,
} from '../../ui';

type Body = RequestBody<'/v1/codehost/oss/{workspaceId}', 'patch'>;
const SWITCHES = [
  'enabled',
  'issues',
  'pull_requests',
  'follow_guidelines',
  'ignore_bots',
  'auto_close_issues',
] as const;

/** Open-source intake: issues and pull requests of public repositories become tickets, by label. */
export function OpenSource({ workspaceId }: { workspaceId: string }) {
  const { t } = useTranslation();
  const oss = useQuery(ossQuery(workspaceId));
  return (
    <section className="card stack" aria-labelledby="code-oss">
      <h2 id="code-oss">{t('code.oss.title')}</h2>
      <p className="muted">{t('code.oss.intro')}</p>
      <QueryView query={oss}>
        {(settings) => <OssForm key={settings.updated_at ?? 'new'} settings={settings} />}
      </QueryView>
    </section>
  );
}

function OssForm({ settings: s }: { settings: OssSettings }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const toast = useToast();
  const client = useQueryClient();
  const [form, setForm] = useState({
    enabled: s.enabled,
    intake: s.intake,
    opt_in_label: s.opt_in_label,
    opt_out_label: s.opt_out_label,
    issues: s.issues,
    pull_requests: s.pull_requests,
    follow_guidelines: s.follow_guidelines,
    ignore_bots: s.ignore_bots,
    auto_close_issues: s.auto_close_issues,
    comments_per_hour: String(s.comments_per_hour),
  });
  const set = <K extends keyof typeof form>(k: K, v: (typeof form)[K]) => setForm((f) => ({ ...f, [k]: v }));
  const save = useMutation({
    mutationFn: () => {
      const { comments_per_hour, ...rest } = form;
      const body: Body = { ...rest, comments_per_hour: Number(comments_per_hour) };
      return data(
        api.PATCH('/v1/codehost/oss/{workspaceId}', { params: { path: { workspaceId: s.workspace_id } }, body }),
      );
    },
    onSuccess: (next) => {
      client.setQueryData(codeKeys.oss(s.workspace_id), next);
      toast.success(t('code.oss.saved'));
    },
  });
  return (
    <Form className="stack" onSubmit={() => save.mutate()} aria-label={t('code.oss.title')}>
      <ErrorAlert
        error={save.error}
        fields={['intake', 'opt_in_label', 'opt_out_label', 'comments_per_hour', ...SWITCHES]}
      />
      <div className="ws-multi">
        {SWITCHES.map((k) => (
          <CheckboxField
            key={k}
            label={t(`code.oss.switches.${k}`)}
            checked={form[k]}
            onChange={(e) => set(k, e.target.checked)}
          />
        ))}
      </div>
      <div className="ws-fields">
        <SelectField
          label={t('code.oss.intake')}
          value={form.intake}
          onChange={(e) => set('intake', e.target.value as NonNullable<Body['intake']>)}
          hint={t(`code.oss.intakeHints.${form.intake}`)}
          error={fieldError(save.error, 'intake')}
        >
          <option value="opt_in">{t('code.oss.intakes.opt_in')}</option>
          <option value="opt_out">{t('code.oss.intakes.opt_out')}</option>
        </SelectField>
        <TextField
          label={t('code.oss.optIn')}
          value={form.opt_in_label}
          onChange={(e) => set('opt_in_label', e.target.value)}
          error={fieldError(save.error, 'opt_in_label')}
        />
        <TextField
          label={t('code.oss.optOut')}
          value={form.opt_out_label}
          onChange={(e) => set('opt_out_label', e.target.value)}
          error={fieldError(save.error, 'opt_out_label')}
        />
        <TextField
          label={t('code.oss.commentsPerHour')}
          type="number"
          min={0}
          max={1000}
          value={form.comments_per_hour}
          onChange={(e) => set('comments_per_hour', e.target.value)}
          error={fieldError(save.error, 'comments_per_hour')}
        />
      </div>
      {s.repositories.length > 0 && (
        <ul className="stack" aria-label={t('code.oss.repositories')}>
          {s.repositories.map((r) => (
            <li key={r.id}>
              <strong>{r.full_name}</strong>{' '}
              <span className="muted">
                {[
                  r.is_public ? t('code.repos.public') : t('code.repos.private'),
                  r.labels_created_at
                    ? t('code.repos.labelsAt', { at: fmt.dateTime(r.labels_created_at) })
                    : t('code.repos.labelsNone'),
                  r.guidelines_read_at
                    ? t('code.repos.readAt', { at: fmt.dateTime(r.guidelines_read_at) })
                    : t('code.repos.guidelinesUnread'),
                ].join(' · ')}
              </span>
            </li>
          ))}
        </ul>
      )}
      <FormActions submit={t('common.save')} pending={save.isPending} />
    </Form>
  );
}
