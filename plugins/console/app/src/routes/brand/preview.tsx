import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocaleLoaded } from '../../i18n';
import { LoadingState } from '../../ui';
import type { BrandProfile } from '../../queries/brand';
import { fontStack } from './fonts';

export interface PreviewBrand {
  name: string;
  /** The color surfaces use behind white text (already adjusted for contrast). */
  color: string;
  font: BrandProfile['font_family'];
  locale: BrandProfile['locale'];
  theme: BrandProfile['theme'];
  logoUrl: string | null;
  showBadge: boolean;
  senderName: string;
  senderEmail: string;
  widgetTexts: BrandProfile['widget_texts'];
}

/**
 * The status page, the widget and an email as customers would see them in this brand, drawn
 * from the form as it is being edited (nothing is saved to show it). Texts are in the profile's
 * language, not the console's.
 */
export function BrandPreview({ brand }: { brand: PreviewBrand }) {
  const { t } = useTranslation();
  const lng = brand.locale;
  // The customers' language may not be the console's: its texts load first (a chunk of their own).
  const textsLoaded = useLocaleLoaded(lng);
  // Through the CSSOM, not a style attribute (the console's CSP has no 'unsafe-inline'); React calls a new
  // callback ref when the frame mounts and whenever the color or the font changes.
  const paint = useCallback(
    (el: HTMLDivElement | null) => {
      el?.style.setProperty('--pv-brand', brand.color);
      el?.style.setProperty('--pv-font', fontStack(brand.font));
    },
    [brand.color, brand.font],
  );
  const p = (key: string, opts: Record<string, unknown> = {}) => t(`brand.preview.${key}`, { ...opts, lng });
  const widget = (k: keyof PreviewBrand['widgetTexts']) => brand.widgetTexts[k] || p(`widget.${k}`);
  const head = (
    <div className="pv-head">
      {brand.logoUrl ? (
        <img className="pv-logo" src={brand.logoUrl} alt={brand.name} />
      ) : (
        <span className="pv-name">{brand.name}</span>
      )}
    </div>
  );
  const badge = brand.showBadge && <div className="pv-badge">{p('badge')}</div>;
  return (
    <section className="card stack brand-preview" aria-labelledby="brand-preview">
      <h2 id="brand-preview">{t('brand.preview.title')}</h2>
      <p className="muted">{t('brand.preview.intro')}</p>
      {textsLoaded ? (
        <div ref={paint} className={`pv pv-${brand.theme}`} lang={lng}>
          <figure className="pv-frame">
            <figcaption>{t('brand.preview.captions.statusPage')}</figcaption>
            <div className="pv-surface">
              {head}
              <div className="pv-body">
                <p className="pv-title">{p('status.title')}</p>
                <ol className="pv-steps">
                  <li className="pv-done">{p('status.received')}</li>
                  <li className="pv-done">{p('status.diagnosed')}</li>
                  <li className="pv-now">{p('status.fixing')}</li>
                  <li>{p('status.released')}</li>
                </ol>
                <span className="pv-button">{p('status.subscribe')}</span>
              </div>
              {badge}
            </div>
          </figure>
          <figure className="pv-frame">
            <figcaption>{t('brand.preview.captions.widget')}</figcaption>
            <div className="pv-surface">
              <div className="pv-body">
                <p className="pv-title">{widget('title')}</p>
                <span className="pv-label">{widget('message_label')}</span>
                <span className="pv-input">{widget('message_placeholder')}</span>
                <span className="pv-label">{widget('email_label')}</span>
                <span className="pv-input">name@example.com</span>
                <span className="pv-button">{widget('submit')}</span>
              </div>
              {badge}
            </div>
            <span className="pv-button pv-launcher">{widget('button')}</span>
          </figure>
          <figure className="pv-frame">
            <figcaption>{t('brand.preview.captions.email')}</figcaption>
            <div className="pv-surface">
              <div className="pv-mailhead">
                <div>
                  {p('email.from', {
                    from: brand.senderName || brand.name,
                    address: brand.senderEmail || p('email.defaultAddress'),
                  })}
                </div>
                <div>{p('email.subject')}</div>
              </div>
              {head}
              <div className="pv-body">
                <p>{p('email.body')}</p>
                <span className="pv-button">{p('email.button')}</span>
                <p>{p('email.signature', { name: brand.name })}</p>
              </div>
              {badge}
            </div>
          </figure>
        </div>
      ) : (
        <LoadingState />
      )}
    </section>
  );
}
