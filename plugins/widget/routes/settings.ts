import type { ServerRoute } from '@hapi/hapi';
import type Joi from 'joi';
import { settingsPatch, WidgetSettings, workspaceParams } from '../schemas.js';
import type { SettingsPatch, WidgetSettingsService } from '../services/settings.js';
import { ADMINS, TAG } from './context.js';

const idOf = (params: unknown) => (params as { id: string }).id;

/** The widget settings of a workspace (owner, admin). */
export function settingsRoutes(svc: () => WidgetSettingsService, ticketSchema: Joi.ObjectSchema): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/workspaces/{id}/widget',
      options: {
        id: 'getWorkspaceWidget',
        tags: [TAG],
        description: 'Widget settings, install status and preview',
        notes:
          'Owner, admin. public_key, allowed_origins, capture, passive_collection, identity_secret (the ' +
          'identify HMAC key), install {status never_seen | active | inactive (seen within ' +
          'seen_recently_hours), last_seen_at, last_seen_origin}, script_url, embed_snippet, preview (the ' +
          'WidgetConfig the script would get). Another organization’s workspace answers 404.',
        validate: { params: workspaceParams },
        response: { status: { 200: WidgetSettings } },
        plugins: { patchwell: ADMINS },
        handler: async (request) => svc().get(request.actor(), idOf(request.params)),
      },
    },
    {
      method: 'PATCH',
      path: '/v1/workspaces/{id}/widget',
      options: {
        id: 'updateWorkspaceWidget',
        tags: [TAG],
        description: 'Updates allowed origins, capture and passive collection',
        notes:
          'Owner, admin. Body (at least one): allowed_origins (≤ 50 origins, scheme://host[:port] or ' +
          'https://*.domain; replaces the list), capture {console, network, screenshot, max_entries 1–100}, ' +
          'passive_collection {enabled}, rotate_identity_secret. 409 workspace_archived. Audited ' +
          '(widget.settings_updated).',
        validate: { params: workspaceParams, payload: settingsPatch },
        response: { status: { 200: WidgetSettings } },
        plugins: { patchwell: ADMINS },
        handler: async (request) =>
          svc().update(request.actor(), idOf(request.params), request.payload as SettingsPatch),
      },
    },
    {
      method: 'POST',
      path: '/v1/workspaces/{id}/widget/rotate-key',
      options: {
        id: 'rotateWorkspaceWidgetKey',
        tags: [TAG],
        description: 'Replaces the public key; the old key stops working at once',
        notes:
          'Owner, admin. No body. Answers the settings with the new public_key; the old key answers 404 from ' +
          'now on. 409 workspace_archived. Audited (widget.key_rotated).',
        validate: { params: workspaceParams },
        response: { status: { 200: WidgetSettings } },
        plugins: { patchwell: ADMINS },
        handler: async (request) => svc().rotateKey(request.actor(), idOf(request.params)),
      },
    },
    {
      method: 'POST',
      path: '/v1/workspaces/{id}/widget/test-report',
      options: {
        id: 'createWorkspaceWidgetTestReport',
        tags: [TAG],
        description: 'Sends a test report: a closed ticket of origin widget, no tokens spent',
        notes:
          'Owner, admin. No body. The ticket (label widget_test, sample console and network context) is opened ' +
          'and closed in one transaction, so no diagnosis runs. Answers 201 with the Ticket. Audited ' +
          '(widget.test_report_sent).',
        validate: { params: workspaceParams },
        response: { status: { 201: ticketSchema } },
        plugins: { patchwell: { ...ADMINS, successStatus: 201 } },
        handler: async (request, h) =>
          h.response(await svc().testReport(request.actor(), idOf(request.params))).code(201),
      },
    },
  ];
}
