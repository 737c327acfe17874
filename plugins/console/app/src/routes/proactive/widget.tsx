import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { isApiError } from '../../api/errors';
import type { RequestBody } from '../../api/types';
import { proactiveKeys, widgetQuery, type WidgetSettings } from '../../queries/proactive';
import {
  Button,
  CheckboxField,
  ConfirmAction,
  CopyValue,
  ErrorState,
  Form,
  FormActions,
  LoadingState,
  TextArea,
  TextField,
  fieldError,
  useFormat,
  useToast,
} from '../../ui';
import { ActionError, copyTexts } from './parts';

type Patch = RequestBody<'/v1/workspaces/{id}/widget', 'patch'>;

/** The widget: where it may run, what it captures, its keys, how to embed it, and how it looks. */
export function Widget({ workspaceId }: { workspaceId: string }) {
  const { t } = useTranslation();
  const widget = useQuery(widgetQuery(workspaceId));
  if (widget.isPending) return <LoadingState />;
  if (widget.isError) return <ErrorState error={widget.error} retry={() => void widget.refetch()} />;
  const w = widget.data;
  return (
    <div className="stack">
      <p className="muted">{t('proactive.widget.intro')}</p>
      <div className="pa-widget-grid">
        <div className="stack">
          <Install settings={w} />
          <SettingsForm key={w.updated_at ?? 'new'} settings={w} />
          <Keys settings={w} />
        </div>
        <Preview settings={w} />
      </div>
    </div>
  );
}

function Install({ settings: w }: { settings: WidgetSettings }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const client = useQueryClient();
  const test = useMutation({
    mutationFn: () =>
      data(api.POST('/v1/workspaces/{id}/widget/test-report', { params: { path: { id: w.workspace_id } } })),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['tickets'] }),
  });
  return (
    <section className="card stack" aria-labelledby="pa-install">
      <div className="spread">
        <h3 id="pa-install">{t('proactive.widget.install')}</h3>
        <span className={`badge pa-status pa-install-${w.install.status}`}>
          {t(`proactive.widget.installStatus.${w.install.status}`)}
        </span>
      </div>
      {w.install.last_seen_at && (
        <p>
          {t('proactive.widget.lastSeen', {
            at: fmt.dateTime(w.install.last_seen_at),
            origin: w.install.last_seen_origin ?? '?',
          })}
        </p>
      )}
      <p className="muted">{t('proactive.widget.embedIntro')}</p>
      <CopyValue
        value={w.embed_snippet}
        label={t('proactive.widget.snippet')}
        action={t('proactive.widget.copySnippet')}
        texts={copyTexts(t)}
      />
      <div className="row">
        <Button pending={test.isPending} onClick={() => test.mutate()}>
          {t('proactive.widget.testReport')}
        </Button>
      </div>
      <ActionError error={test.error} />
      {test.data && (
        <div className="alert alert-success" role="status">
          {t('proactive.widget.testSent')}{' '}
          <Link to={`/tickets/${test.data.id}`}>{t('proactive.widget.testTicket')}</Link>
        </div>
      )}
    </section>
  );
}

function SettingsForm({ settings: w }: { settings: WidgetSettings }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const [origins, setOrigins] = useState(w.allowed_origins.join('\n'));
  const [capture, setCapture] = useState(w.capture);
  const [passive, setPassive] = useState(w.passive_collection.enabled);
  const save = useMutation({
    mutationFn: () => {
      const body: Patch = {
        allowed_origins: origins
          .split(/[\s,]+/)
          .map((o) => o.trim())
          .filter(Boolean),
        capture,
        passive_collection: { enabled: passive },
      };
      return data(api.PATCH('/v1/workspaces/{id}/widget', { params: { path: { id: w.workspace_id } }, body }));
    },
    onSuccess: (next) => {
      client.setQueryData(proactiveKeys.widget(w.workspace_id), next);
      toast.success(t('proactive.widget.saved'));
    },
  });
  const originError = fieldError(save.error, 'allowed_origins') ?? isOriginIssue(save.error);
  return (
    <Form className="card stack" onSubmit={() => save.mutate()} aria-labelledby="pa-widget-settings">
      <h3 id="pa-widget-settings">{t('proactive.widget.settings')}</h3>
      <ActionError error={save.error} fields={['allowed_origins', 'capture.max_entries']} />
      <TextArea
        label={t('proactive.widget.origins')}
        hint={t('proactive.widget.originsHint')}
        rows={4}
        value={origins}
        onChange={(e) => setOrigins(e.target.value)}
        error={originError}
      />
      <fieldset className="pa-checks">
        <legend>{t('proactive.widget.capture')}</legend>
        <CheckboxField
          label={t('proactive.widget.console')}
          checked={capture.console}
          onChange={(e) => setCapture({ ...capture, console: e.target.checked })}
        />
        <CheckboxField
          label={t('proactive.widget.network')}
          checked={capture.network}
          onChange={(e) => setCapture({ ...capture, network: e.target.checked })}
        />
        <CheckboxField
          label={t('proactive.widget.screenshot')}
          checked={capture.screenshot}
          onChange={(e) => setCapture({ ...capture, screenshot: e.target.checked })}
        />
      </fieldset>
      <TextField
        label={t('proactive.widget.maxEntries')}
        type="number"
        min={1}
        max={100}
        value={String(capture.max_entries)}
        onChange={(e) => setCapture({ ...capture, max_entries: Number(e.target.value) })}
        error={fieldError(save.error, 'capture.max_entries')}
      />
      <CheckboxField
        label={t('proactive.widget.passive')}
        hint={t('proactive.widget.passiveHint')}
        checked={passive}
        onChange={(e) => setPassive(e.target.checked)}
      />
      <FormActions submit={t('proactive.save')} pending={save.isPending} />
    </Form>
  );
}

/** A refused origin list names the bad origin in the API's message (a 400 on allowed_origins items). */
function isOriginIssue(error: unknown): string | undefined {
  return isApiError(error)
    ? error.fieldErrors.find((f) => f.path.startsWith('payload.allowed_origins'))?.message
    : undefined;
}

/** The public key (rotating it stops the old one at once) and the identify secret (kept on the host's server). */
function Keys({ settings: w }: { settings: WidgetSettings }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const toast = useToast();
  const client = useQueryClient();
  const [reveal, setReveal] = useState(false);
  const took = (next: WidgetSettings) => {
    client.setQueryData(proactiveKeys.widget(w.workspace_id), next);
  };
  const rotateKey = useMutation({
    mutationFn: () =>
      data(api.POST('/v1/workspaces/{id}/widget/rotate-key', { params: { path: { id: w.workspace_id } } })),
    onSuccess: (next) => {
      took(next);
      toast.success(t('proactive.widget.keyRotated'));
    },
  });
  const rotateIdentity = useMutation({
    mutationFn: () =>
      data(
        api.PATCH('/v1/workspaces/{id}/widget', {
          params: { path: { id: w.workspace_id } },
          body: { rotate_identity_secret: true },
        }),
      ),
    onSuccess: (next) => {
      took(next);
      setReveal(false);
      toast.success(t('proactive.widget.identityRotated'));
    },
  });
  return (
    <section className="card stack" aria-labelledby="pa-keys">
      <h3 id="pa-keys">{t('proactive.widget.keys')}</h3>
      <dl className="pa-facts">
        <dt>{t('proactive.widget.publicKey')}</dt>
        <dd>
          <code>{w.public_key ?? '–'}</code>
        </dd>
        {w.key_rotated_at && (
          <>
            <dt>{t('proactive.widget.keyRotatedAt')}</dt>
            <dd>{fmt.dateTime(w.key_rotated_at)}</dd>
          </>
        )}
        <dt>{t('proactive.widget.identitySecret')}</dt>
        <dd>
          {w.identity_secret ? (
            <code>{reveal ? w.identity_secret : t('proactive.endsWith', { last4: w.identity_secret.slice(-4) })}</code>
          ) : (
            '–'
          )}
        </dd>
      </dl>
      <div className="row">
        <ConfirmAction
          label={t('proactive.widget.rotateKey')}
          title={t('proactive.widget.rotateKeyTitle')}
          confirm={t('proactive.widget.rotateKey')}
          action={rotateKey}
        >
          <p>{t('proactive.widget.rotateKeyBody')}</p>
        </ConfirmAction>
        {w.identity_secret && (
          <Button onClick={() => setReveal(!reveal)} aria-pressed={reveal}>
            {t('proactive.widget.showIdentity')}
          </Button>
        )}
        <ConfirmAction
          label={t('proactive.widget.rotateIdentity')}
          title={t('proactive.widget.rotateIdentityTitle')}
          confirm={t('proactive.widget.rotateIdentity')}
          action={rotateIdentity}
        >
          <p>{t('proactive.widget.rotateIdentityBody')}</p>
        </ConfirmAction>
      </div>
    </section>
  );
}

/**
 * The widget as the script draws it, from `preview` (the configuration the script would fetch): the button and
 * the open form, with the brand's color, font, theme, texts and badge. Not the script itself: loaded into the
 * console it would wrap the console's own `console` and `fetch` and count the console as an install.
 */
function Preview({ settings: w }: { settings: WidgetSettings }) {
  const { t } = useTranslation();
  const p = w.preview;
  const box = useRef<HTMLDivElement>(null);
  const [open, setOpen] = useState(true);
  // Brand values as CSS variables through the CSSOM (CSP allows it; no inline style attribute).
  useEffect(() => {
    box.current?.style.setProperty('--pw-color', p.brand.primary_color);
    box.current?.style.setProperty('--pw-font', p.brand.font_family);
  }, [p.brand.primary_color, p.brand.font_family]);
  return (
    <section className="card stack" aria-labelledby="pa-preview">
      <h3 id="pa-preview">{t('proactive.widget.preview')}</h3>
      <p className="muted">{t('proactive.widget.previewIntro', { locale: p.locale })}</p>
      <div
        ref={box}
        className={`pa-preview pa-preview-${p.brand.theme}`}
        role="group"
        aria-label={t('proactive.widget.previewLabel')}
        lang={p.locale}
      >
        {open && (
          <div className="pa-preview-panel">
            <div className="pa-preview-head">
              {p.brand.logo_url ? (
                <img src={p.brand.logo_url} alt={p.brand.name} className="pa-preview-logo" />
              ) : (
                <strong>{p.brand.name}</strong>
              )}
              <span>{p.texts.title}</span>
            </div>
            <label className="pa-preview-label" htmlFor="pa-preview-message">
              {p.texts.message_label}
            </label>
            <textarea id="pa-preview-message" rows={3} placeholder={p.texts.message_placeholder} readOnly />
            <label className="pa-preview-label" htmlFor="pa-preview-email">
              {p.texts.email_label}
            </label>
            <input id="pa-preview-email" type="email" readOnly />
            {(p.capture.console || p.capture.network) && (
              <p className="pa-preview-small">{p.texts.technical_consent}</p>
            )}
            {p.capture.screenshot && (
              <button type="button" className="pa-preview-secondary" tabIndex={-1}>
                {p.texts.screenshot_button}
              </button>
            )}
            <button type="button" className="pa-preview-primary" tabIndex={-1}>
              {p.texts.submit}
            </button>
            {p.brand.show_badge && p.brand.badge_text && <p className="pa-preview-small">{p.brand.badge_text}</p>}
          </div>
        )}
        <button type="button" className="pa-preview-launcher" aria-expanded={open} onClick={() => setOpen(!open)}>
          {p.texts.button}
        </button>
      </div>
      <dl className="pa-facts">
        <dt>{t('proactive.widget.capture')}</dt>
        <dd>
          {[
            p.capture.console && t('proactive.widget.console'),
            p.capture.network && t('proactive.widget.network'),
            p.capture.screenshot && t('proactive.widget.screenshot'),
          ]
            .filter(Boolean)
            .join(', ') || t('proactive.widget.nothing')}
        </dd>
        <dt>{t('proactive.widget.passive')}</dt>
        <dd>{p.passive_collection.enabled ? t('proactive.yes') : t('proactive.no')}</dd>
      </dl>
    </section>
  );
}
