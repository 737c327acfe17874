/**
 * One line about each section of the interface (the OpenAPI tags; a route's tag is its spec
 * section's name exactly). A caller's `tagDescriptions` win; a partner plugin's own section has
 * no line here unless its caller passes one.
 */
export const SECTION_DESCRIPTIONS: Record<string, string> = {
  agency:
    "An agency's client workspaces: overview, approval queue, monthly reports, resale and white-label readiness, partner profile",
  analytics: 'Organization and workspace metrics, and the review of open-source sponsorship requests',
  approvals: "Fixes and batched release proposals waiting for the current user's approval",
  audit: "The organization's audit log, its export, and the stream to an external log system",
  auth: 'Sign-up, sign-in (password, magic link, code host), email verification, password reset and the session',
  billing: 'Plan, subscription, credits, spend cap, overage, add-ons, invoices and hosted payment pages',
  brand: 'Brand profiles (colors, sender, logo, texts, status domain) and which profile each workspace uses',
  channels: "A workspace's email channel: forwarding address, test, inbound emails and quarantine",
  claims: 'Claims of credits for a published review or case study, reviewed by staff',
  codehost: 'The code-host app: installations, their repositories, open-source settings and the webhook',
  'connectors-admin':
    'Connectors that bring errors in: error trackers, metrics platforms, cloud logs, the generic endpoint',
  domains: 'Sending and receiving email domains of a brand, registered with the email provider',
  'email-webhooks': 'Inbound email from the email provider',
  'error-groups': 'Errors grouped by fingerprint, and the proactive tickets opened from them',
  'error-tracker webhook': 'Issues pushed by an error tracker connector',
  files: 'Signed links to attachments and screenshots',
  health: 'Liveness and readiness of the service',
  ingest: 'Error events pushed to a generic endpoint connector',
  invitations: 'Invitations to join the organization',
  jobs: 'The job protocol a runner or an agent speaks while it works on one job (job tokens)',
  mcp: 'The Model Context Protocol endpoint for IDE agents (API tokens)',
  me: "The signed-in user's own profile",
  members: 'Members of the organization and their roles',
  onboarding: 'The setup wizard, execution settings of a workspace, and the demo ticket',
  openapi: 'This document',
  orgs: 'The current organization',
  patterns: 'Problem and fix patterns learned from resolved tickets, shared among organizations that opt in',
  'payment webhooks': 'Events from the payment provider (subscriptions, invoices, payouts)',
  privacy: 'Data export, erasure of an end user, deletion of a ticket, closure of the organization',
  public: 'Public reads and requests without sign-in: white-label brand, partners, counters, sponsorship requests',
  referrals: "The organization's referral code and what it earned",
  releases: 'Releases after approved fixes: history, CI state, batched proposals, retries and versions',
  repositories: 'Repositories connected to workspaces, their agent key, labels and onboarding pull request',
  runner: 'Self-hosted runners: registration and claiming jobs',
  sourcemaps: 'Source maps of a release, for symbolicated stack traces',
  'sso and security': 'Single sign-on (OIDC and SAML), domains, enforcement, recovery codes and approval governance',
  staff:
    "The operator's desk of a self-hosted installation (staff only): organizations, plans granted by hand, credit claims",
  tickets: 'Tickets: the conversation, team actions, drafts, fixes, releases, subscribers and status links',
  tokens: 'API tokens of the organization',
  widget: 'The support widget: public configuration, reports and events, and its settings per workspace',
  workspaces: 'Workspaces: the unit that owns a mailbox, a widget, repositories and tickets',
};
