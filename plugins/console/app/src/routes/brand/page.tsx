import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { brandKeys, brandQuery, type BrandOverview } from '../../queries/brand';
import { Button, ErrorAlert, Form, QueryView, SelectField, TextField, fieldError, useToast } from '../../ui';
import { Swatch } from './swatch';
import '../workspaces/workspaces.css';
import './brand.css';

/**
 * /brand (owners and admins): the organization's brand profiles, a new one, and which profile
 * each workspace shows (GET /v1/brand, PUT /v1/brand/workspaces/{id}).
 */
export default function BrandPage() {
  const { t } = useTranslation();
  const brand = useQuery(brandQuery());
  return (
    <div className="stack">
      <h1>{t('brand.title')}</h1>
      <p className="muted">{t('brand.intro')}</p>
      <QueryView query={brand}>
        {(overview) => (
          <>
            <Profiles overview={overview} />
            <Workspaces overview={overview} />
          </>
        )}
      </QueryView>
    </div>
  );
}

function Profiles({ overview }: { overview: BrandOverview }) {
  const { t } = useTranslation();
  const limit = overview.allowances.brand_profiles;
  return (
    <section className="card stack" aria-labelledby="brand-profiles">
      <h2 id="brand-profiles">{t('brand.profiles.title')}</h2>
      <p className="muted">
        {limit == null ? t('brand.profiles.unlimited') : t('brand.profiles.limited', { count: limit })}
      </p>
      {overview.profiles.length === 0 && <p className="muted">{t('brand.profiles.none')}</p>}
      <ul className="brand-list">
        {overview.profiles.map((p) => (
          <li key={p.id} className="brand-item">
            <Swatch color={p.primary_color_effective} />
            <div className="stack brand-item-text">
              <Link to={`/brand/${p.id}`}>{p.name}</Link>
              <span className="muted">
                {[
                  p.is_default ? t('brand.profiles.default') : null,
                  p.font_family,
                  t(`common.locales.${p.locale}`),
                  p.status_domain,
                ]
                  .filter(Boolean)
                  .join(' · ')}
              </span>
            </div>
          </li>
        ))}
      </ul>
      <CreateProfile first={overview.profiles.length === 0} />
    </section>
  );
}

function CreateProfile({ first }: { first: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () => data(api.POST('/v1/brand/profiles', { body: { name: name.trim() } })),
    onSuccess: (p) => {
      client.setQueryData(brandKeys.profile(p.id), p);
      void client.invalidateQueries({ queryKey: brandKeys.overview() });
      void navigate(`/brand/${p.id}`);
    },
  });
  return (
    <Form className="stack brand-sub" onSubmit={() => create.mutate()} aria-labelledby="brand-new">
      <h3 id="brand-new">{t('brand.profiles.new')}</h3>
      {first && <p className="muted">{t('brand.profiles.firstIsDefault')}</p>}
      <ErrorAlert error={create.error} fields={['name']} />
      <div className="row brand-inline">
        <TextField
          label={t('brand.profiles.name')}
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={fieldError(create.error, 'name')}
        />
        <Button type="submit" variant="primary" pending={create.isPending}>
          {t('brand.profiles.create')}
        </Button>
      </div>
    </Form>
  );
}

/** Which profile each workspace shows, and what a client workspace still lacks for white label. */
function Workspaces({ overview }: { overview: BrandOverview }) {
  const { t } = useTranslation();
  if (overview.workspaces.length === 0) return null;
  return (
    <section className="card stack" aria-labelledby="brand-workspaces">
      <h2 id="brand-workspaces">{t('brand.workspaces.title')}</h2>
      <p className="muted">{t('brand.workspaces.intro')}</p>
      {overview.workspaces.map((w) => (
        <WorkspaceBrand key={w.id} workspace={w} overview={overview} />
      ))}
    </section>
  );
}

function WorkspaceBrand({
  workspace: w,
  overview,
}: {
  workspace: BrandOverview['workspaces'][number];
  overview: BrandOverview;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const fallback = overview.profiles.find((p) => p.is_default);
  const assign = useMutation({
    mutationFn: (id: string | null) =>
      data(api.PUT('/v1/brand/workspaces/{id}', { params: { path: { id: w.id } }, body: { brand_profile_id: id } })),
    onSuccess: (next) => {
      client.setQueryData<BrandOverview>(
        brandKeys.overview(),
        (o) => o && { ...o, workspaces: o.workspaces.map((x) => (x.id === next.id ? next : x)) },
      );
      toast.success(t('brand.workspaces.saved', { name: w.name }));
    },
  });
  return (
    <div className="stack brand-sub">
      <SelectField
        label={w.client_name ? `${w.name} (${w.client_name})` : w.name}
        value={w.brand_profile_id ?? ''}
        disabled={assign.isPending}
        onChange={(e) => assign.mutate(e.target.value || null)}
        hint={t('brand.workspaces.statusAt', { url: w.status_base_url })}
      >
        <option value="">
          {fallback ? t('brand.workspaces.defaultOf', { name: fallback.name }) : t('brand.workspaces.noProfile')}
        </option>
        {overview.profiles.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </SelectField>
      <ErrorAlert error={assign.error} />
      {w.white_label_missing.length > 0 && (
        <div className="alert alert-warning" role="note">
          <strong>{t('brand.workspaces.missing')}</strong>
          <ul>
            {w.white_label_missing.map((m) => (
              <li key={m}>{t(`brand.workspaces.missingItems.${m}`, { defaultValue: m })}</li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
