import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { RequestBody } from '../../api/types';
import {
  brandKeys,
  brandProfileQuery,
  useProfileInCache,
  type BrandOverview,
  type BrandProfile,
} from '../../queries/brand';
import {
  CheckboxField,
  ConfirmAction,
  ErrorAlert,
  Form,
  FormActions,
  LocaleOptions,
  QueryView,
  SelectField,
  TextField,
  fieldError,
  useFormat,
  useToast,
} from '../../ui';
import { fullHex, readableOnWhite, whiteContrast } from './contrast';
import { FONTS } from './fonts';
import { Logo } from './logo';
import { BrandPreview } from './preview';
import { StatusDomain } from './status-domain';
import { Swatch } from './swatch';
import '../workspaces/workspaces.css';
import './brand.css';

type Body = RequestBody<'/v1/brand/profiles/{id}', 'patch'>;
type WidgetKey = keyof BrandProfile['widget_texts'];
const WIDGET_KEYS: WidgetKey[] = [
  'button',
  'title',
  'message_label',
  'message_placeholder',
  'email_label',
  'technical_consent',
  'screenshot_button',
  'screenshot_consent',
  'submit',
  'confirmation',
  'follow_link',
  'error',
];

/** /brand/{id}: a profile's settings beside a live preview; its logo and status domain; delete. */
export default function BrandProfilePage() {
  const { t } = useTranslation();
  const { id = '' } = useParams();
  const profile = useQuery(brandProfileQuery(id));
  return (
    <div className="stack">
      <div className="spread">
        <h1>{profile.data ? profile.data.name : t('brand.profile.title')}</h1>
        <Link className="btn" to="/brand">
          {t('brand.profile.back')}
        </Link>
      </div>
      <QueryView query={profile}>
        {(p) => (
          <>
            <Editor key={p.updated_at} profile={p} />
            <Logo profile={p} />
            <StatusDomain profile={p} />
            <Remove profile={p} />
          </>
        )}
      </QueryView>
    </div>
  );
}

function Editor({ profile }: { profile: BrandProfile }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const toast = useToast();
  const inCache = useProfileInCache();
  const [f, setF] = useState({
    name: profile.name,
    primary_color: profile.primary_color,
    font_family: profile.font_family,
    locale: profile.locale,
    theme: profile.theme,
    sender_name: profile.sender_name ?? '',
    sender_email: profile.sender_email ?? '',
    website_url: profile.website_url ?? '',
    show_badge: profile.show_badge,
    is_default: profile.is_default,
    widget_texts: { ...profile.widget_texts },
  });
  const save = useMutation({
    mutationFn: () => {
      // Only what changed; a blank optional text is sent as null (the API then uses its default).
      const body: Body = {};
      if (f.name.trim() !== profile.name) body.name = f.name.trim();
      if (f.primary_color.trim().toLowerCase() !== profile.primary_color) body.primary_color = f.primary_color.trim();
      if (f.font_family !== profile.font_family) body.font_family = f.font_family;
      if (f.locale !== profile.locale) body.locale = f.locale;
      if (f.theme !== profile.theme) body.theme = f.theme;
      if (f.sender_name.trim() !== (profile.sender_name ?? '')) body.sender_name = f.sender_name.trim() || null;
      if (f.sender_email.trim() !== (profile.sender_email ?? '')) body.sender_email = f.sender_email.trim() || null;
      if (f.website_url.trim() !== (profile.website_url ?? '')) body.website_url = f.website_url.trim() || null;
      if (f.show_badge !== profile.show_badge) body.show_badge = f.show_badge;
      if (f.is_default && !profile.is_default) body.is_default = true;
      const changed = WIDGET_KEYS.filter((k) => (f.widget_texts[k] ?? '') !== (profile.widget_texts[k] ?? ''));
      const texts = Object.fromEntries(changed.map((k) => [k, f.widget_texts[k] ?? '']));
      if (Object.keys(texts).length > 0) body.widget_texts = texts;
      if (Object.keys(body).length === 0) return Promise.resolve(profile);
      return data(api.PATCH('/v1/brand/profiles/{id}', { params: { path: { id: profile.id } }, body }));
    },
    onSuccess: (p) => {
      inCache(p);
      toast.success(t('brand.profile.saved'));
    },
  });
  const err = (k: string) => fieldError(save.error, k);
  const chosen = fullHex(f.primary_color);
  // The saved color's effective one is the API's; an edited one is previewed with an approximation.
  const saved = chosen === profile.primary_color;
  const approx = chosen && (whiteContrast(chosen) >= 4.5 ? chosen : readableOnWhite(chosen));
  const effective = saved || !approx ? profile.primary_color_effective : approx;
  const adjusted = saved ? profile.color_adjusted : !!chosen && effective !== chosen;
  return (
    <div className="brand-editor">
      <Form className="card stack" onSubmit={() => save.mutate()} aria-labelledby="brand-settings">
        <h2 id="brand-settings">{t('brand.profile.settings')}</h2>
        <ErrorAlert
          error={save.error}
          fields={[
            'name',
            'primary_color',
            'font_family',
            'locale',
            'theme',
            'sender_name',
            'sender_email',
            'website_url',
            'show_badge',
            'is_default',
            ...WIDGET_KEYS.map((k) => `widget_texts.${k}`),
          ]}
        />
        <div className="ws-fields">
          <TextField
            label={t('brand.profile.name')}
            value={f.name}
            onChange={(e) => setF({ ...f, name: e.target.value })}
            error={err('name')}
          />
          <div className="stack brand-color">
            <TextField
              label={t('brand.profile.color')}
              hint={t('brand.profile.colorHint')}
              value={f.primary_color}
              onChange={(e) => setF({ ...f, primary_color: e.target.value })}
              error={err('primary_color')}
            />
            <input
              type="color"
              aria-label={t('brand.profile.pick')}
              value={chosen ?? '#000000'}
              onChange={(e) => setF({ ...f, primary_color: e.target.value })}
            />
          </div>
          <SelectField
            label={t('brand.profile.font')}
            value={f.font_family}
            error={err('font_family')}
            onChange={(e) => setF({ ...f, font_family: e.target.value as BrandProfile['font_family'] })}
          >
            {FONTS.map((x) => (
              <option key={x} value={x}>
                {x}
              </option>
            ))}
          </SelectField>
          <SelectField
            label={t('brand.profile.locale')}
            value={f.locale}
            onChange={(e) => setF({ ...f, locale: e.target.value as BrandProfile['locale'] })}
          >
            <LocaleOptions />
          </SelectField>
          <SelectField
            label={t('brand.profile.theme')}
            value={f.theme}
            onChange={(e) => setF({ ...f, theme: e.target.value as BrandProfile['theme'] })}
          >
            <option value="light">{t('brand.profile.themes.light')}</option>
            <option value="dark">{t('brand.profile.themes.dark')}</option>
          </SelectField>
          <TextField
            label={t('brand.profile.senderName')}
            value={f.sender_name}
            error={err('sender_name')}
            onChange={(e) => setF({ ...f, sender_name: e.target.value })}
          />
          <TextField
            label={t('brand.profile.senderEmail')}
            hint={t('brand.profile.senderEmailHint')}
            type="email"
            value={f.sender_email}
            onChange={(e) => setF({ ...f, sender_email: e.target.value })}
            error={err('sender_email')}
          />
          <TextField
            label={t('brand.profile.website')}
            type="url"
            value={f.website_url}
            onChange={(e) => setF({ ...f, website_url: e.target.value })}
            error={err('website_url')}
          />
        </div>
        {chosen && (
          <div className="brand-colors" role="status">
            <span className="row">
              <Swatch color={chosen} /> {t('brand.profile.chosen', { color: chosen })}
            </span>
            <span className="row">
              <Swatch color={effective} /> {t('brand.profile.effective', { color: effective })}
            </span>
            <span className="muted">
              {adjusted
                ? t('brand.profile.adjusted', {
                    ratio: fmt.number(whiteContrast(chosen), { maximumFractionDigits: 1 }),
                  })
                : t('brand.profile.notAdjusted')}
              {!saved && ` ${t('brand.profile.untilSaved')}`}
            </span>
          </div>
        )}
        <CheckboxField
          label={t('brand.profile.badge')}
          hint={t('brand.profile.badgeHint')}
          checked={f.show_badge}
          onChange={(e) => setF({ ...f, show_badge: e.target.checked })}
          error={err('show_badge')}
        />
        <CheckboxField
          label={t('brand.profile.default')}
          hint={profile.is_default ? t('brand.profile.isDefault') : undefined}
          checked={f.is_default}
          disabled={profile.is_default}
          onChange={(e) => setF({ ...f, is_default: e.target.checked })}
        />
        <details className="brand-texts">
          <summary>{t('brand.profile.widgetTexts')}</summary>
          <p className="muted">{t('brand.profile.widgetTextsHint')}</p>
          <div className="ws-fields">
            {WIDGET_KEYS.map((k) => (
              <TextField
                key={k}
                label={t(`brand.profile.widget.${k}`)}
                value={f.widget_texts[k] ?? ''}
                error={err(`widget_texts.${k}`)}
                onChange={(e) => setF({ ...f, widget_texts: { ...f.widget_texts, [k]: e.target.value } })}
              />
            ))}
          </div>
        </details>
        <FormActions submit={t('common.save')} pending={save.isPending} />
      </Form>
      <BrandPreview
        brand={{
          name: f.name || profile.name,
          color: effective,
          font: f.font_family,
          locale: f.locale,
          theme: f.theme,
          logoUrl: profile.logo?.url ?? null,
          showBadge: f.show_badge,
          senderName: f.sender_name,
          senderEmail: f.sender_email,
          widgetTexts: f.widget_texts,
        }}
      />
    </div>
  );
}

function Remove({ profile }: { profile: BrandProfile }) {
  const { t } = useTranslation();
  const toast = useToast();
  const navigate = useNavigate();
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => data(api.DELETE('/v1/brand/profiles/{id}', { params: { path: { id: profile.id } } })),
    onSuccess: () => {
      client.removeQueries({ queryKey: brandKeys.profile(profile.id) });
      // Gone from the list at once (the list is shown next), then read again for the workspaces it served.
      client.setQueryData<BrandOverview>(brandKeys.overview(), (o) =>
        o ? { ...o, profiles: o.profiles.filter((p) => p.id !== profile.id) } : o,
      );
      void client.invalidateQueries({ queryKey: brandKeys.overview() });
      toast.success(t('brand.profile.deleted', { name: profile.name }));
      void navigate('/brand');
    },
  });
  return (
    <section className="card stack" aria-labelledby="brand-delete">
      <h2 id="brand-delete">{t('brand.profile.delete')}</h2>
      <p className="muted">{profile.is_default ? t('brand.profile.deleteDefault') : t('brand.profile.deleteIntro')}</p>
      <div>
        <ConfirmAction
          label={t('brand.profile.delete')}
          title={t('brand.profile.deleteTitle', { name: profile.name })}
          confirm={t('brand.profile.deleteConfirm')}
          danger
          action={remove}
        >
          <p>{t('brand.profile.deleteBody')}</p>
        </ConfirmAction>
      </div>
    </section>
  );
}
