// Listed apart because cssFontStack picks the generic fallback by kind.
const SERIF_FAMILIES = [
  'Merriweather',
  'Playfair Display',
  'Lora',
  'PT Serif',
  'Noto Serif',
  'Libre Baskerville',
  'Source Serif 4',
  'EB Garamond',
  'Roboto Slab',
] as const;
const MONO_FAMILIES = ['JetBrains Mono', 'Fira Code'] as const;

/**
 * The closed set of 48 font families a brand profile may use (BrandProfile.font_family): widely
 * available web fonts (Google Fonts, open licences) plus the platform's system stack. Emails
 * and pages fall back to a generic family of the same kind when a font is not available.
 */
export const FONT_FAMILIES = [
  // Sans serif
  'Inter',
  'Roboto',
  'Open Sans',
  'Lato',
  'Montserrat',
  'Poppins',
  'Source Sans 3',
  'Noto Sans',
  'Nunito',
  'Nunito Sans',
  'Raleway',
  'Work Sans',
  'Rubik',
  'Fira Sans',
  'IBM Plex Sans',
  'PT Sans',
  'Ubuntu',
  'Mulish',
  'Manrope',
  'DM Sans',
  'Karla',
  'Barlow',
  'Quicksand',
  'Cabin',
  'Heebo',
  'Titillium Web',
  'Josefin Sans',
  'Oswald',
  'Outfit',
  'Plus Jakarta Sans',
  'Lexend',
  'Figtree',
  'Space Grotesk',
  'Archivo',
  'Public Sans',
  'Red Hat Text',
  ...SERIF_FAMILIES,
  ...MONO_FAMILIES,
  // The reader's own interface font
  'System UI',
] as const;

export type FontFamily = (typeof FONT_FAMILIES)[number];

export const DEFAULT_FONT: FontFamily = 'Inter';

const SERIF = new Set<string>(SERIF_FAMILIES);
const MONO = new Set<string>(MONO_FAMILIES);

/** A CSS font-family value with a generic fallback. */
export function cssFontStack(family: string): string {
  if (family === 'System UI') return 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  const generic = SERIF.has(family)
    ? 'Georgia, serif'
    : MONO.has(family)
      ? 'ui-monospace, monospace'
      : 'system-ui, sans-serif';
  return `"${family}", ${generic}`;
}
