import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { RequestBody, Schema } from '../../api/types';
import { agencyKeys, agencyPartnerQuery } from '../../queries/agency';
import {
  CheckboxField,
  Form,
  FormActions,
  QueryView,
  TextArea,
  TextField,
  fieldError,
  useFormat,
  useToast,
} from '../../ui';
import { ReasonAlert } from '../billing/reason';
import { AgencyError, AgencyNav } from './nav';
import '../workspaces/workspaces.css';

type Profile = Schema<'PartnerProfile'>;
type Body = RequestBody<'/v1/agency/partner', 'put'>;
type Language = NonNullable<Body['languages']>[number];
type Service = NonNullable<Body['services']>[number];
const LANGUAGES: Language[] = ['en', 'it', 'de', 'fr', 'es', 'pt', 'nl'];
const SERVICES: Service[] = [
  'setup',
  'managed_support',
  'white_label',
  'custom_integrations',
  'training',
  'development',
];

/** /agency/partner: the public partner profile, its certification, and the customers it referred. */
export default function AgencyPartner() {
  const { t } = useTranslation();
  const partner = useQuery(agencyPartnerQuery());
  return (
    <div className="stack">
      <h1>{t('agency.partner.title')}</h1>
      <AgencyNav />
      <QueryView query={partner} failed={AgencyError}>
        {(profile) => <PartnerForm key={profile.updated_at ?? 'new'} profile={profile} />}
      </QueryView>
    </div>
  );
}

function PartnerForm({ profile }: { profile: Profile }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const toast = useToast();
  const qc = useQueryClient();
  const [name, setName] = useState(profile.display_name);
  const [website, setWebsite] = useState(profile.website_url ?? '');
  const [description, setDescription] = useState(profile.description ?? '');
  const [contact, setContact] = useState(profile.contact_email ?? '');
  const [countries, setCountries] = useState(profile.countries.join(', '));
  const [languages, setLanguages] = useState<string[]>(profile.languages);
  const [services, setServices] = useState<string[]>(profile.services);
  const [listed, setListed] = useState(profile.listed);
  const [certify, setCertify] = useState(false);
  const save = useMutation({
    mutationFn: () =>
      data(
        api.PUT('/v1/agency/partner', {
          body: {
            display_name: name,
            website_url: website || null,
            description: description || null,
            contact_email: contact || null,
            countries: countries
              .split(/[,\s]+/)
              .map((c) => c.trim().toUpperCase())
              .filter(Boolean),
            languages: languages as Language[],
            services: services as Service[],
            listed,
            ...(certify ? { request_certification: true } : {}),
          },
        }),
      ),
    onSuccess: (next) => {
      qc.setQueryData(agencyKeys.partner(), next);
      setCertify(false);
      toast.success(t('agency.partner.saved'));
    },
  });
  const toggle = (list: string[], v: string, on: boolean) => (on ? [...list, v] : list.filter((x) => x !== v));
  const c = profile.certification;
  return (
    <>
      <section className="card stack" aria-labelledby="partner-state">
        <h2 id="partner-state">{t('agency.partner.state')}</h2>
        <p>
          {t(`agency.partner.certification.${c.status}`, { date: fmt.date(c.certified_at ?? c.requested_at) })}{' '}
          {profile.public ? t('agency.partner.public') : t('agency.partner.notPublic')}
        </p>
        {profile.referral_code && (
          <p>
            {t('agency.partner.code')}: <code>{profile.referral_code}</code>
          </p>
        )}
        <h3>{t('agency.partner.referred')}</h3>
        {profile.referred_customers.length === 0 ? (
          <p className="muted">{t('agency.partner.noReferred')}</p>
        ) : (
          <ul>
            {profile.referred_customers.map((r) => (
              <li key={r.organization_id}>
                {t('agency.partner.referredItem', { name: r.name, plan: r.plan, date: fmt.date(r.signed_up_at) })}
              </li>
            ))}
          </ul>
        )}
      </section>
      <Form className="card stack" onSubmit={() => save.mutate()} aria-labelledby="partner-profile">
        <h2 id="partner-profile">{t('agency.partner.profile')}</h2>
        <TextField
          label={t('agency.partner.name')}
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={fieldError(save.error, 'display_name')}
        />
        <TextField
          label={t('agency.partner.website')}
          type="url"
          value={website}
          onChange={(e) => setWebsite(e.target.value)}
          error={fieldError(save.error, 'website_url')}
        />
        <TextArea
          label={t('agency.partner.description')}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          error={fieldError(save.error, 'description')}
        />
        <TextField
          label={t('agency.partner.contact')}
          type="email"
          value={contact}
          onChange={(e) => setContact(e.target.value)}
          error={fieldError(save.error, 'contact_email')}
        />
        <TextField
          label={t('agency.partner.countries')}
          hint={t('agency.partner.countriesHint')}
          value={countries}
          onChange={(e) => setCountries(e.target.value)}
          error={fieldError(save.error, 'countries')}
        />
        <fieldset className="ws-multi">
          <legend>{t('agency.partner.languages')}</legend>
          {LANGUAGES.map((l) => (
            <CheckboxField
              key={l}
              label={t(`agency.partner.languageNames.${l}`)}
              checked={languages.includes(l)}
              onChange={(e) => setLanguages((x) => toggle(x, l, e.target.checked))}
            />
          ))}
        </fieldset>
        <fieldset className="ws-multi">
          <legend>{t('agency.partner.services')}</legend>
          {SERVICES.map((s) => (
            <CheckboxField
              key={s}
              label={t(`agency.partner.serviceNames.${s}`)}
              checked={services.includes(s)}
              onChange={(e) => setServices((x) => toggle(x, s, e.target.checked))}
            />
          ))}
        </fieldset>
        <CheckboxField
          label={t('agency.partner.listed')}
          hint={t('agency.partner.listedHint')}
          checked={listed}
          onChange={(e) => setListed(e.target.checked)}
        />
        {(c.status === 'none' || c.status === 'revoked') && (
          <CheckboxField
            label={t('agency.partner.requestCertification')}
            checked={certify}
            onChange={(e) => setCertify(e.target.checked)}
          />
        )}
        <ReasonAlert
          error={save.error}
          fields={['display_name', 'website_url', 'description', 'contact_email', 'countries']}
        />
        <FormActions submit={t('agency.partner.save')} pending={save.isPending} />
      </Form>
    </>
  );
}
