import type { BrandProfile } from '../../queries/brand';

type Font = BrandProfile['font_family'];

/** The API's closed set of font families, in its order, for the select (the type checks it is complete). */
export const FONTS = [
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
  'Merriweather',
  'Playfair Display',
  'Lora',
  'PT Serif',
  'Noto Serif',
  'Libre Baskerville',
  'Source Serif 4',
  'EB Garamond',
  'Roboto Slab',
  'JetBrains Mono',
  'Fira Code',
  'System UI',
] as const satisfies readonly Font[];

// A family the API adds and this list lacks fails the type check here.
type Missing = Exclude<Font, (typeof FONTS)[number]>;
export const FONTS_COMPLETE: [Missing] extends [never] ? true : Missing = true;

/** The CSS font stack of a family (the console loads no web font: the family if installed, else a fallback of its kind). */
export function fontStack(font: Font): string {
  if (font === 'System UI') return 'system-ui, sans-serif';
  const kind = /Mono|Code/.test(font)
    ? 'monospace'
    : /Serif|Garamond|Baskerville|Merriweather|Playfair|Lora|Slab/.test(font)
      ? 'serif'
      : 'sans-serif';
  return `"${font}", ${kind}`;
}
