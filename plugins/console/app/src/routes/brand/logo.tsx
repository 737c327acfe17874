import { useRef, useState, type ChangeEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { useProfileInCache, type BrandProfile } from '../../queries/brand';
import { Button, ErrorAlert, useFormat } from '../../ui';

type LogoType = 'image/png' | 'image/jpeg' | 'image/webp';
const TYPES: LogoType[] = ['image/png', 'image/jpeg', 'image/webp'];
/** The spec's limit (the API reads the real type and size from the bytes and answers the same). */
export const MAX_LOGO_BYTES = 512 * 1024;

const isLogoType = (type: string): type is LogoType => (TYPES as string[]).includes(type);

/** The bytes of a file as base64 (what PUT …/logo takes). */
const base64Of = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    // readAsDataURL leaves a string (data:…;base64,…) in result.
    reader.onload = () => resolve((reader.result as string).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('read failed'));
    reader.readAsDataURL(file);
  });

/** The profile's logo: what is there, a new upload (its limits checked first), removal. */
export function Logo({ profile }: { profile: BrandProfile }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const inCache = useProfileInCache();
  const input = useRef<HTMLInputElement>(null);
  const [refused, setRefused] = useState<string | null>(null);
  const upload = useMutation({
    mutationFn: async (file: File & { type: LogoType }) =>
      data(
        api.PUT('/v1/brand/profiles/{id}/logo', {
          params: { path: { id: profile.id } },
          body: { content_type: file.type, data_base64: await base64Of(file) },
        }),
      ),
    onSuccess: inCache,
  });
  const remove = useMutation({
    mutationFn: () => data(api.DELETE('/v1/brand/profiles/{id}/logo', { params: { path: { id: profile.id } } })),
    onSuccess: inCache,
  });
  const chosen = (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    upload.reset();
    setRefused(null);
    if (!file) return;
    // Checked here so a wrong file is explained before it is sent; the API checks again from the bytes.
    if (!isLogoType(file.type)) return setRefused(t('brand.logo.wrongType', { name: file.name }));
    if (file.size > MAX_LOGO_BYTES)
      return setRefused(t('brand.logo.tooBig', { name: file.name, size: fmt.number(Math.ceil(file.size / 1024)) }));
    upload.mutate(file as File & { type: LogoType });
  };
  const logo = profile.logo;
  return (
    <section className="card stack" aria-labelledby="brand-logo">
      <h2 id="brand-logo">{t('brand.logo.title')}</h2>
      <p className="muted">{t('brand.logo.limits')}</p>
      {logo?.url ? (
        <div className="row brand-logo">
          <img src={logo.url} alt={t('brand.logo.current', { name: profile.name })} />
          <span className="muted">
            {logo.source === 'upload'
              ? t('brand.logo.facts', {
                  type: logo.content_type?.replace('image/', '').toUpperCase(),
                  width: logo.width,
                  height: logo.height,
                  size: fmt.number(Math.ceil((logo.size_bytes ?? 0) / 1024)),
                  date: fmt.date(logo.uploaded_at),
                })
              : t('brand.logo.linked')}
          </span>
        </div>
      ) : (
        <p>{t('brand.logo.none')}</p>
      )}
      {refused && (
        <div className="alert alert-error" role="alert">
          {refused}
        </div>
      )}
      <ErrorAlert error={upload.error} />
      <ErrorAlert error={remove.error} />
      <input
        ref={input}
        id="brand-logo-file"
        className="visually-hidden"
        type="file"
        accept={TYPES.join(',')}
        onChange={chosen}
        aria-label={t('brand.logo.file')}
      />
      <div className="row">
        <Button variant="primary" pending={upload.isPending} onClick={() => input.current?.click()}>
          {logo ? t('brand.logo.replace') : t('brand.logo.upload')}
        </Button>
        {logo && (
          <Button pending={remove.isPending} onClick={() => remove.mutate()}>
            {t('brand.logo.remove')}
          </Button>
        )}
        {logo && (
          <a href={logo.preview_url} target="_blank" rel="noreferrer">
            {t('brand.logo.previewPage')}
          </a>
        )}
      </div>
    </section>
  );
}
