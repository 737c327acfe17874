/** A URL-safe slug from a display name: `Acme Shop (EU)` → `acme-shop-eu`; lower-case ASCII, at most 40 characters. */
export function slugify(name: string, fallback: string): string {
  const s = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return s || fallback;
}
