import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { canOpenWorkspace, principalOf } from '../../../core/http/auth.js';
import { forbidden, httpError, notFound, unauthenticated } from '../../../core/http/errors.js';
import { TicketFile } from '../models/index.js';
import type { TicketRouteServices } from './context.js';

const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** `attachment; filename="…"; filename*=UTF-8''…`, inline for raster images only. */
function disposition(file: TicketFile): string {
  const kind = INLINE_TYPES.has(file.content_type) ? 'inline' : 'attachment';
  const ascii = file.filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.filename)}`;
}

/** The files section: download of an attachment or screenshot by id. */
export function fileRoutes(s: TicketRouteServices): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/files/{id}',
      options: {
        id: 'getFile',
        tags: ['files'],
        description: 'Downloads an attachment or screenshot',
        notes:
          "Authorized by a session (the caller must open the ticket's workspace) or by the short-lived signed " +
          'link the conversation carries (`exp` and `sig`, valid about an hour). 403 invalid_link or ' +
          'link_expired for a bad link.',
        auth: { strategy: 'session', mode: 'try' },
        validate: {
          params: Joi.object({ id: Joi.string().max(64).required().description('File id') }),
          query: Joi.object({
            exp: Joi.number().integer().min(0).description('Expiry of a signed link (Unix seconds)'),
            sig: Joi.string().max(128).description('Signature of a signed link'),
          }).and('exp', 'sig'),
        },
        handler: async (request, h) => {
          const { id } = request.params as { id: string };
          const { exp, sig } = request.query as { exp?: number; sig?: string };
          const principal = principalOf(request);
          let file: TicketFile | undefined;
          if (principal) {
            file = await TicketFile.query().forOrg(principal.orgId).findById(id);
            if (!file) throw notFound('file');
            if (!canOpenWorkspace(principal, file.workspace_id))
              throw forbidden("You cannot open this file's workspace");
          } else if (exp !== undefined && sig) {
            const verdict = s.fileLinks().check(id, exp, sig);
            if (verdict === 'invalid') throw httpError(403, 'invalid_link', 'This download link is not valid');
            if (verdict === 'expired')
              throw httpError(
                403,
                'link_expired',
                'This download link has expired; open the ticket again for a fresh one',
              );
            file = await TicketFile.query().acrossOrgs('signed file link').findById(id);
            if (!file) throw notFound('file');
          } else {
            throw unauthenticated('Sign in or use a signed link');
          }
          // pg answers a Buffer, PGlite a Uint8Array.
          return h
            .response(Buffer.from(file.content as Uint8Array))
            .type(file.content_type)
            .header('Content-Disposition', disposition(file))
            .header('Content-Length', String(file.size))
            .header('X-Content-Type-Options', 'nosniff')
            .header('Content-Security-Policy', "default-src 'none'; sandbox")
            .header('Cache-Control', 'private, max-age=300');
        },
      },
    },
  ];
}
