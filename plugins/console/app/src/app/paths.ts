/**
 * Paths the console answers without a session: every page an email, the code host or the
 * identity provider sends people to (docs/console.md lists them with the API that builds each).
 */
export const PUBLIC_PATHS = [
  '/login',
  '/signup',
  '/verify-email',
  '/magic-link',
  '/forgot-password',
  '/reset-password',
  '/invitations/accept',
  '/sso/confirm',
];

export const isPublicPath = (pathname: string) =>
  PUBLIC_PATHS.some((p) => pathname === p || pathname.startsWith(`${p}/`));

/** A redirect_to the console may follow: a path of this origin, never `//host` or a URL. */
export function safeRedirect(value: string | null | undefined, fallback = '/'): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return fallback;
  return value;
}

/** The sign-in page, with the way back to where the person was. */
export function signInPath(back: string): string {
  return back && back !== '/' ? `/login?redirect_to=${encodeURIComponent(back)}` : '/login';
}
