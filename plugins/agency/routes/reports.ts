import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { paginationQuery, pageSchema } from '../../../core/http/pagination.js';
import type { AgencyReports } from '../services/reports.js';
import { isoTime, nullableTime } from '../../../core/http/times.js';

const tags = ['agency'];
const OWNERS_ADMINS = { roles: ['owner', 'admin'] };
const month = Joi.string()
  .pattern(/^\d{4}-(0[1-9]|1[0-2])$/)
  .description('UTC calendar month, YYYY-MM');
const minutes = Joi.number().allow(null).required();

const Durations = Joi.object({
  count: Joi.number().integer().required(),
  avg_minutes: minutes,
  median_minutes: minutes,
  p90_minutes: minutes,
});
const ReportSchema = Joi.object({
  id: Joi.string().required(),
  workspace_id: Joi.string().required(),
  client_name: Joi.string().required(),
  month: Joi.string().required(),
  period: Joi.object({ start: isoTime().required(), end: isoTime().required() }).required(),
  locale: Joi.string().valid('en', 'it').required(),
  status: Joi.string().valid('generated', 'sent').required(),
  figures: Joi.object({
    tickets: Joi.object({
      opened: Joi.number().integer().required(),
      resolved: Joi.number().integer().required(),
      fixed: Joi.number().integer().required(),
      escalated: Joi.number().integer().required(),
      answered_without_fix: Joi.number().integer().required(),
    }).required(),
    first_response: Durations.required(),
    resolution: Durations.required(),
    fixes: Joi.object({ attempted: Joi.number().integer().required(), succeeded: Joi.number().integer().required() })
      .allow(null)
      .required(),
    weekly: Joi.array()
      .items(
        Joi.object({
          period_start: isoTime().required(),
          tickets: Joi.number().integer().required(),
          resolved: Joi.number().integer().required(),
          fixed: Joi.number().integer().required(),
          median_first_response_minutes: minutes,
          median_resolution_minutes: minutes,
        }),
      )
      .required(),
  }).required(),
  recipients: Joi.array().items(Joi.string()).required().description('Addresses of the last send'),
  pdf_filename: Joi.string().required(),
  generated_at: isoTime().required(),
  sent_at: nullableTime(),
  send_count: Joi.number().integer().required(),
}).id('AgencyReport');
const ReportList = pageSchema(ReportSchema).id('AgencyReportList');

/** The agency's monthly client reports (docs/agency.md). */
export function reportRoutes(reports: () => AgencyReports): ServerRoute[] {
  const id = Joi.object({ id: Joi.string().max(64).required() });
  return [
    {
      method: 'GET',
      path: '/v1/agency/reports',
      options: {
        id: 'listAgencyReports',
        tags,
        description: 'Monthly client reports, newest month first',
        plugins: { patchwell: OWNERS_ADMINS },
        validate: { query: Joi.object({ ...paginationQuery, workspace_id: Joi.string().max(64), month }) },
        response: { status: { 200: ReportList } },
        handler: async (request) => reports().list(requirePrincipal(request), request.query),
      },
    },
    {
      method: 'POST',
      path: '/v1/agency/reports',
      options: {
        id: 'createAgencyReport',
        tags,
        description: "Generates a client's report for a month (idempotent per client and month)",
        notes:
          'month defaults to the last complete UTC month. 201 with a new report; 200 with the stored one when ' +
          "the client's month was generated before. 422 month_not_started for a future month.",
        plugins: { patchwell: { ...OWNERS_ADMINS, successStatus: 201 } },
        validate: { payload: Joi.object({ workspace_id: Joi.string().max(64).required(), month }).required() },
        response: { status: { 200: ReportSchema, 201: ReportSchema } },
        handler: async (request, h) => {
          const { created, report } = await reports().generate(
            request.actor(),
            request.payload as { workspace_id: string; month?: string },
          );
          return h.response(report).code(created ? 201 : 200);
        },
      },
    },
    {
      method: 'GET',
      path: '/v1/agency/reports/{id}',
      options: {
        id: 'getAgencyReport',
        tags,
        description: 'One monthly report of a client',
        plugins: { patchwell: OWNERS_ADMINS },
        validate: { params: id },
        response: { status: { 200: ReportSchema } },
        handler: async (request) => reports().get(requirePrincipal(request), (request.params as { id: string }).id),
      },
    },
    {
      method: 'POST',
      path: '/v1/agency/reports/{id}/send',
      options: {
        id: 'sendAgencyReport',
        tags,
        description: "Emails the report with the agency's brand (HTML and the PDF attached)",
        notes:
          "recipients default to the workspace's report recipients; none answers 422 no_recipients. Sending again sends again. Audited.",
        plugins: { patchwell: OWNERS_ADMINS },
        validate: {
          params: id,
          payload: Joi.object({
            recipients: Joi.array()
              .items(
                Joi.string()
                  .trim()
                  .email({ tlds: { allow: false } })
                  .max(254),
              )
              .min(1)
              .max(20),
          }).allow(null),
        },
        response: { status: { 200: ReportSchema } },
        handler: async (request) => {
          const { id: reportId } = request.params as { id: string };
          return reports().send(request.actor(), reportId, (request.payload as { recipients?: string[] } | null) ?? {});
        },
      },
    },
  ];
}
