import type { Request, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { requirePrincipal } from '../../../core/http/auth.js';
import {
  AssignInput,
  BrandOverviewSchema,
  BrandProfileSchema,
  CreateProfileInput,
  LogoInput,
  StatusDomainInput,
  UpdateProfileInput,
  VerifyAnswerSchema,
  WorkspaceBrandSchema,
} from '../schemas.js';
import type { BrandDirectoryService } from '../services/directory.js';
import type { BrandOverviewService } from '../services/overview.js';
import type { BrandService, ProfileInput } from '../services/profiles.js';
import type { LogoContentType } from '../services/image.js';
import { OWNERS_ADMINS } from './common.js';

const tags = ['brand'];
const idParams = Joi.object({ id: Joi.string().max(64).required() });
type IdParams = { id: string };

export interface BrandRouteServices {
  brand: () => BrandService;
  directory: () => BrandDirectoryService;
  overview: () => BrandOverviewService;
}

/** Route table of the brand section (11 operations). */
export function brandRoutes(s: BrandRouteServices, ok: Joi.ObjectSchema): ServerRoute[] {
  const profileRoute = (
    method: 'PATCH' | 'PUT' | 'DELETE',
    path: string,
    id: string,
    description: string,
    extra: { notes?: string; payload?: Joi.Schema; handler: (request: Request) => Promise<unknown> },
    payloadOpts?: Record<string, unknown>,
  ): ServerRoute => ({
    method,
    path,
    options: {
      id,
      tags,
      description,
      ...(extra.notes ? { notes: extra.notes } : {}),
      ...(payloadOpts ? { payload: payloadOpts } : {}),
      validate: { params: idParams, ...(extra.payload ? { payload: extra.payload } : {}) },
      plugins: { patchwell: OWNERS_ADMINS },
      response: { status: { 200: BrandProfileSchema } },
      handler: async (request) => extra.handler(request) as Promise<object>,
    },
  });
  return [
    {
      method: 'GET',
      path: '/v1/brand',
      options: {
        id: 'getBrand',
        tags,
        description: "Brand profiles of the organization, its workspaces' brands and the plan allowances",
        plugins: { patchwell: OWNERS_ADMINS },
        response: { status: { 200: BrandOverviewSchema } },
        handler: async (request) => s.overview().overview(requirePrincipal(request)),
      },
    },
    {
      method: 'POST',
      path: '/v1/brand/profiles',
      options: {
        id: 'createBrandProfile',
        tags,
        description: 'Creates a brand profile',
        notes:
          'The first profile becomes the default. Plans without brand profiles keep one (402 ' +
          'plan_limit_reached, details.reason brand_profiles). show_badge false needs the badge removal add-on.',
        validate: { payload: CreateProfileInput },
        plugins: { patchwell: { ...OWNERS_ADMINS, successStatus: 201 } },
        response: { status: { 201: BrandProfileSchema } },
        handler: async (request, h) =>
          h
            .response(await s.brand().create(request.actor(), request.payload as ProfileInput & { name: string }))
            .code(201),
      },
    },
    {
      method: 'GET',
      path: '/v1/brand/profiles/{id}',
      options: {
        id: 'getBrandProfile',
        tags,
        description: 'A brand profile',
        validate: { params: idParams },
        response: { status: { 200: BrandProfileSchema } },
        handler: async (request) => s.brand().get(requirePrincipal(request), (request.params as IdParams).id),
      },
    },
    profileRoute('PATCH', '/v1/brand/profiles/{id}', 'updateBrandProfile', 'Changes a brand profile', {
      notes:
        'All fields optional. primary_color is kept as given; primary_color_effective is darkened until ' +
        'white text on it meets WCAG AA (4.5:1). is_default true makes this the default; the default cannot ' +
        'be unset (422 default_required).',
      payload: UpdateProfileInput,
      handler: async (request) =>
        s.brand().update(request.actor(), (request.params as IdParams).id, request.payload as ProfileInput),
    }),
    {
      method: 'DELETE',
      path: '/v1/brand/profiles/{id}',
      options: {
        id: 'deleteBrandProfile',
        tags,
        description: 'Deletes a brand profile; its workspaces fall back to the default profile',
        notes:
          'The default profile is deleted last (409 default_profile while others exist); a profile with email domains answers 409 profile_has_domains.',
        validate: { params: idParams },
        plugins: { patchwell: OWNERS_ADMINS },
        response: { status: { 200: ok } },
        handler: async (request) => s.brand().remove(request.actor(), (request.params as IdParams).id),
      },
    },
    profileRoute(
      'PUT',
      '/v1/brand/profiles/{id}/logo',
      'uploadBrandLogo',
      'Uploads the logo (PNG, JPEG or WebP; at most 512 KiB)',
      {
        notes:
          'The type is read from the bytes and must match content_type (422 content_type_mismatch); other ' +
          'formats answer 422 unsupported_image; more than 512 KiB answers 413 payload_too_large. Width and ' +
          'height are read from the image.',
        payload: LogoInput,
        handler: async (request) =>
          s
            .brand()
            .putLogo(
              request.actor(),
              (request.params as IdParams).id,
              request.payload as { content_type: LogoContentType; data_base64: string },
            ),
      },
      { maxBytes: 1024 * 1024 },
    ),
    profileRoute(
      'DELETE',
      '/v1/brand/profiles/{id}/logo',
      'deleteBrandLogo',
      'Removes the logo; surfaces then show the name as text',
      {
        handler: async (request) => s.brand().deleteLogo(request.actor(), (request.params as IdParams).id),
      },
    ),
    profileRoute(
      'PUT',
      '/v1/brand/profiles/{id}/status-domain',
      'setBrandStatusDomain',
      'Sets the status-page domain and returns the DNS records to publish',
      {
        notes:
          'Publish the CNAME (to the service) and the TXT challenge shown in status_domain_state, then verify. ' +
          'A domain verified by another brand answers 409 domain_taken.',
        payload: StatusDomainInput,
        handler: async (request) =>
          s
            .brand()
            .setStatusDomain(
              request.actor(),
              (request.params as IdParams).id,
              (request.payload as { domain: string }).domain,
            ),
      },
    ),
    profileRoute(
      'DELETE',
      '/v1/brand/profiles/{id}/status-domain',
      'deleteBrandStatusDomain',
      'Removes the status-page domain; status pages return to the default host',
      {
        handler: async (request) => s.brand().clearStatusDomain(request.actor(), (request.params as IdParams).id),
      },
    ),
    {
      method: 'POST',
      path: '/v1/brand/profiles/{id}/status-domain/verify',
      options: {
        id: 'verifyBrandStatusDomain',
        tags,
        description: "Checks the status domain's DNS records now",
        notes:
          'Answers the profile with status_domain_state (cname_ok, txt_ok, last_error, failing_since). 409 no_status_domain without a domain.',
        validate: { params: idParams },
        plugins: { patchwell: OWNERS_ADMINS },
        response: { status: { 200: VerifyAnswerSchema } },
        handler: async (request) => s.brand().verifyStatusDomain(request.actor(), (request.params as IdParams).id),
      },
    },
    {
      method: 'PUT',
      path: '/v1/brand/workspaces/{id}',
      options: {
        id: 'setWorkspaceBrand',
        tags,
        description: 'Chooses the brand profile of a workspace (null: the default profile)',
        validate: { params: idParams, payload: AssignInput },
        plugins: { patchwell: OWNERS_ADMINS },
        response: { status: { 200: WorkspaceBrandSchema } },
        handler: async (request) => {
          const actor = request.actor();
          const ws = await s
            .brand()
            .assign(
              actor,
              (request.params as IdParams).id,
              (request.payload as { brand_profile_id: string | null }).brand_profile_id,
            );
          return s.directory().workspaceBrand(s.overview().db, ws);
        },
      },
    },
  ];
}
