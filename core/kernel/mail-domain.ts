import { isIP } from 'node:net';

/**
 * The domain the service's own addresses use by default (inbound `…@inbound.<domain>`, sender
 * `no-reply@<domain>`, Message-IDs) for a PUBLIC_BASE_URL: its host name, except that an IP
 * address gives `localhost`. An address on an IP (`x@inbound.127.0.0.1`) is not a valid email
 * address, so every send with it as Reply-To failed; `localhost` is a reserved name (RFC 6761)
 * that no outside mail reaches, which is no loss: mail for an install without a DNS name arrives
 * through the email webhook anyway. Operators with a mail domain set it explicitly
 * (`plugins.workspaces.options.inboundDomain`, `plugins.mail.options.from`).
 *
 * @example mailDomainOf('http://127.0.0.1:3000') // 'localhost'
 * @example mailDomainOf('https://support.example.com') // 'support.example.com'
 */
export function mailDomainOf(publicBaseUrl: string): string {
  const host = new URL(publicBaseUrl).hostname.toLowerCase().replace(/\.$/, '');
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return isIP(bare) ? 'localhost' : host;
}
