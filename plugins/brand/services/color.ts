/**
 * WCAG 2.x contrast for brand colors. Buttons and headers print white text on the primary
 * color, so the color in use must give white text a contrast of at least 4.5:1 (AA, normal
 * text). A lighter color is darkened, keeping its hue and saturation, to the lightest shade
 * that passes.
 */

export const WCAG_AA = 4.5;

type Rgb = [number, number, number];

/** `#abc` or `#aabbcc` (any case) as lower-case `#aabbcc`; null when it is not a hex color. */
export function normalizeHex(input: string): string | null {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(input.trim());
  if (!m) return null;
  const h = m[1].toLowerCase();
  return `#${h.length === 3 ? [...h].map((c) => c + c).join('') : h}`;
}

function toRgb(hex: string): Rgb {
  const h = normalizeHex(hex);
  if (!h) throw new Error(`not a hex color: ${hex}`);
  return [0, 2, 4].map((i) => parseInt(h.slice(1 + i, 3 + i), 16)) as Rgb;
}

const toHex = (rgb: Rgb): string =>
  `#${rgb
    .map((v) =>
      Math.round(Math.min(255, Math.max(0, v)))
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;

/** Relative luminance (WCAG 2.2, sRGB). */
export function luminance(hex: string): number {
  const [r, g, b] = toRgb(hex).map((v) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** Contrast ratio of two colors, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [l1, l2] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (l1 + 0.05) / (l2 + 0.05);
}

function rgbToHsl([r, g, b]: Rgb): [number, number, number] {
  const [rn, gn, bn] = [r / 255, g / 255, b / 255];
  const max = Math.max(rn, gn, bn);
  const min = Math.min(rn, gn, bn);
  const l = (max + min) / 2;
  if (max === min) return [0, 0, l];
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  let h = max === rn ? (gn - bn) / d + (gn < bn ? 6 : 0) : max === gn ? (bn - rn) / d + 2 : (rn - gn) / d + 4;
  h /= 6;
  return [h, s, l];
}

function hslToRgb([h, s, l]: [number, number, number]): Rgb {
  if (s === 0) return [l * 255, l * 255, l * 255];
  const hue = (p: number, q: number, t: number) => {
    if (t < 0) t += 1;
    if (t > 1) t -= 1;
    if (t < 1 / 6) return p + (q - p) * 6 * t;
    if (t < 1 / 2) return q;
    if (t < 2 / 3) return p + (q - p) * (2 / 3 - t) * 6;
    return p;
  };
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  return [hue(p, q, h + 1 / 3) * 255, hue(p, q, h) * 255, hue(p, q, h - 1 / 3) * 255];
}

/**
 * The color to use behind white text: the color itself when it already meets `ratio` against
 * white, otherwise the lightest shade of the same hue and saturation that does.
 */
export function accessiblePrimary(hex: string, ratio = WCAG_AA): { color: string; adjusted: boolean } {
  const color = normalizeHex(hex);
  if (!color) throw new Error(`not a hex color: ${hex}`);
  if (contrastRatio(color, '#ffffff') >= ratio) return { color, adjusted: false };
  const [h, s, l] = rgbToHsl(toRgb(color));
  // Binary search on lightness; rounding to 8 bits can land just above the line, so step down until it passes.
  let lo = 0;
  let hi = l;
  for (let i = 0; i < 24; i++) {
    const mid = (lo + hi) / 2;
    if (contrastRatio(toHex(hslToRgb([h, s, mid])), '#ffffff') >= ratio) lo = mid;
    else hi = mid;
  }
  let out = toHex(hslToRgb([h, s, lo]));
  for (let light = lo; contrastRatio(out, '#ffffff') < ratio && light > 0; light = Math.max(0, light - 0.002))
    out = toHex(hslToRgb([h, s, light]));
  return { color: out, adjusted: true };
}
