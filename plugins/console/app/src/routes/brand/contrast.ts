/**
 * How the preview shows a color the person has not saved yet: white text needs a contrast of
 * 4.5:1 (WCAG AA), so a lighter color is shown darkened until it passes. The API decides the
 * saved one (`primary_color_effective`); this is only the preview's approximation of it.
 */
const channels = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

function lum(rgb: number[]): number {
  const [r, g, b] = rgb.map((v) => (v / 255 <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** White text's contrast on the color. */
export const whiteContrast = (hex: string) => 1.05 / (lum(channels(hex)) + 0.05);

/** `#abc` → `#aabbcc`; null when not a color. */
export function fullHex(input: string): string | null {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(input.trim());
  if (!m) return null;
  const h = m[1]!.toLowerCase();
  return `#${h.length === 3 ? [...h].map((c) => c + c).join('') : h}`;
}

/** The color scaled toward black, step by step, until white text on it reaches 4.5:1. */
export function readableOnWhite(hex: string): string {
  const rgb = channels(hex);
  for (let k = 1; k > 0; k -= 0.01) {
    const out = `#${rgb
      .map((v) =>
        Math.floor(v * k)
          .toString(16)
          .padStart(2, '0'),
      )
      .join('')}`;
    if (whiteContrast(out) >= 4.5) return out;
  }
  return '#000000';
}
