import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { projectRoot as root } from '../../../core/kernel/config.js';
import type { App } from '../../../core/kernel/app.js';
import { addMember, signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import { auditApp, json, setPlan } from './helpers/setup.js';

/**
 * Every administrative change of the landed plugins writes an audit entry. The walk takes the
 * route table: each unsafe operation that only owners or admins may call, in the sections of
 * accounts, workspaces, codehost, billing, tickets, sso and inbox, must either have a scenario
 * below (which calls it and looks for the entry) or be listed as not being a change, with why.
 * A new administrative operation without either fails this test.
 */
const SECTIONS = new Set([
  'auth',
  'me',
  'orgs',
  'members',
  'invitations',
  'tokens',
  'workspaces',
  'codehost',
  'repositories',
  'billing',
  'claims',
  'referrals',
  'tickets',
  'files',
  'sso and security',
  'channels',
  'domains',
]);

/** Operations that change nothing an audit log records, or are not reachable offline here. */
const NOT_CHANGES: Record<string, string> = {
  openBillingPortal: 'answers a URL of the provider’s portal; changes happen there and come back as audited webhooks',
  createBillingCheckout:
    'answers a checkout URL; the subscription change arrives by webhook (billing.subscription_changed)',
  createBillingTopup: 'answers a checkout URL; the payment arrives by webhook (billing.topup_paid)',
  createPayoutOnboarding:
    'answers an onboarding link; the account change arrives by webhook (billing.connect_account_updated)',
  startCodeHostInstall:
    'answers an install URL with a single-use state; linking is audited (codehost.installation_linked)',
  testChannelForwarding: 'sends a test email (audited anyway as channel.forwarding_test_sent)',
  testSsoConnection: 'checks a connection’s discovery; changes nothing',
  verifyDomain: 'asks the provider to check DNS; a state change is recorded by the domain service',
  verifySsoDomain:
    'checks a TXT record; audited as sso.domain_verified when it verifies (needs DNS, covered in sso tests)',
  readRepositoryGuidelines: 'reads the repository’s contributing guidelines; changes nothing here',
  refreshRepository:
    're-reads repository metadata from the code host (audited as repository.refreshed; needs an installation)',
  createRepositoryLabels: 'creates labels on the code host, not in Patchwell',
  openRepositoryOnboardingPr: 'opens a pull request on the code host (engineer D reuses it in onboarding)',
};

/**
 * Administrative operations that need a vendor on the other side (a code-host installation, an
 * identity provider, a payment subscription, a DNS answer) to succeed: not called here, but the
 * walk checks that their plugin's source records the named action (each plugin's own tests call
 * them against its local peers). Per plugin: operation → [action, what it needs].
 */
const NEEDS_A_PEER: Record<string, Record<string, [action: string, needs: string]>> = {
  inbox: {
    registerDomain: ['domain.registered', 'a sending-domain plan and the email provider'],
    updateDomainSender: ['domain.sender_changed', 'a registered domain'],
    deleteDomain: ['domain.deleted', 'a registered domain'],
    releaseInboundEmail: ['inbound_email.released', 'a quarantined inbound email'],
  },
  codehost: {
    connectRepository: ['repository.connected', 'a code-host installation'],
    deleteRepository: ['repository.disconnected', 'a connected repository'],
    setRepositoryAgentKey: ['repository.agent_key_set', 'a connected repository'],
    linkCodeHostInstallation: ['codehost.installation_linked', 'the code host’s setup redirect'],
    syncCodeHostInstallation: ['codehost.installation_synced', 'a linked installation'],
    unlinkCodeHostInstallation: ['codehost.installation_unlinked', 'a linked installation'],
  },
  sso: {
    createSsoConnection: ['sso.connection_created', 'an identity provider to discover'],
    updateSsoConnection: ['sso.connection_updated', 'a connection'],
    deleteSsoConnection: ['sso.connection_deleted', 'a connection'],
    unlinkSsoAccount: ['sso.account_unlinked', 'a linked account'],
    releaseSsoAddress: ['sso.address_released', 'a verified domain'],
    setSsoEnforcement: ['sso.enforcement_changed', 'a verified domain and a connection'],
  },
  billing: {
    switchBillingPlan: ['billing.plan_switched', 'a subscription at the payment provider'],
    cancelBillingSubscription: ['billing.subscription_cancel_requested', 'a subscription'],
    setBadgeRemovalAddon: ['billing.badge_removal_changed', 'a subscription'],
    setWorkspaceManagedAddon: ['billing.workspace_managed_changed', 'a subscription'],
    setWorkspaceResale: ['billing.workspace_resale_changed', 'an agency plan with a payout account'],
  },
};
const PEER_OPERATIONS = new Set(Object.values(NEEDS_A_PEER).flatMap((ops) => Object.keys(ops)));

interface Scenario {
  action: string | RegExp;
  run(c: Ctx): Promise<{ statusCode: number; payload: string }>;
}
interface Ctx {
  app: App;
  owner: SignedUp;
  workspaceId: string;
  memberId: string;
  invitationId: string;
  tokenId: string;
}

const inject = (c: Ctx, method: string, url: string, payload?: unknown) =>
  c.app.server.inject({
    method,
    url,
    ...(payload === undefined ? {} : { payload: payload as object }),
    ...c.owner.auth,
  });

const SCENARIOS: Record<string, Scenario> = {
  updateCurrentOrganization: {
    action: 'organization.updated',
    run: (c) => inject(c, 'PATCH', '/v1/orgs/current', { name: 'Renamed Co' }),
  },
  createInvitation: {
    action: 'invitation.created',
    run: async (c) => {
      const res = await inject(c, 'POST', '/v1/invitations', {
        email: 'walk@example.test',
        role: 'reviewer',
        workspace_ids: [],
      });
      c.invitationId = json<{ id: string }>(res).id;
      return res;
    },
  },
  revokeInvitation: {
    action: 'invitation.revoked',
    run: (c) => inject(c, 'DELETE', `/v1/invitations/${c.invitationId}`),
  },
  updateMember: {
    action: 'member.role_changed',
    run: (c) => inject(c, 'PATCH', `/v1/members/${c.memberId}`, { role: 'admin' }),
  },
  removeMember: { action: 'member.removed', run: (c) => inject(c, 'DELETE', `/v1/members/${c.memberId}`) },
  createWorkspace: {
    action: 'workspace.created',
    run: async (c) => {
      const res = await inject(c, 'POST', '/v1/workspaces', { name: 'Walked' });
      c.workspaceId = json<{ id: string }>(res).id;
      return res;
    },
  },
  updateWorkspace: {
    action: 'workspace.updated',
    run: (c) => inject(c, 'PATCH', `/v1/workspaces/${c.workspaceId}`, { name: 'Walked again' }),
  },
  updateChannel: {
    action: 'channel.updated',
    run: (c) => inject(c, 'PATCH', `/v1/channels/${c.workspaceId}`, { accept_list_mail: true }),
  },
  setChannelForwarding: {
    action: 'channel.forwarding_set',
    run: (c) =>
      inject(c, 'PUT', `/v1/channels/${c.workspaceId}/forwarding`, {
        address: 'support@walk.example',
        provider: 'other',
      }),
  },
  deleteChannelForwarding: {
    action: 'channel.forwarding_removed',
    run: (c) => inject(c, 'DELETE', `/v1/channels/${c.workspaceId}/forwarding`),
  },
  createBillingClaim: {
    action: 'billing.claim_requested',
    run: (c) => inject(c, 'POST', '/v1/billing/claims', { kind: 'review', url: 'https://reviews.example/walker' }),
  },
  enableOpenSourcePlan: {
    action: 'billing.open_source_enabled',
    run: async (c) => {
      await setPlan(c.app, c.owner.organization.id, 'none');
      const res = await inject(c, 'POST', '/v1/billing/open-source');
      await setPlan(c.app, c.owner.organization.id, 'enterprise');
      return res;
    },
  },
  updateCodeHostOssSettings: {
    action: /^(codehost\.oss_settings_updated|workspace\.updated)$/,
    run: (c) => inject(c, 'PATCH', `/v1/codehost/oss/${c.workspaceId}`, { comments_per_hour: 7 }),
  },
  setBillingOverage: { action: /^billing\./, run: (c) => inject(c, 'PUT', '/v1/billing/overage', { enabled: true }) },
  setBillingSpendCap: { action: /^billing\./, run: (c) => inject(c, 'PUT', '/v1/billing/spend-cap', { cap_usd: 250 }) },
  updateGovernance: {
    action: 'governance.updated',
    run: (c) => inject(c, 'PUT', '/v1/security/governance', { min_approvers: 2, roles: ['owner', 'admin'] }),
  },
  claimSsoDomain: {
    action: 'sso.domain_claimed',
    run: (c) => inject(c, 'POST', '/v1/security/sso/domains', { domain: 'walk-example.com' }),
  },
  deleteSsoDomain: {
    action: 'sso.domain_removed',
    run: (c) => inject(c, 'DELETE', '/v1/security/sso/domains/walk-example.com'),
  },
  regenerateSsoRecoveryCodes: {
    action: 'sso.recovery_codes_generated',
    run: (c) => inject(c, 'POST', '/v1/security/sso/recovery-codes'),
  },
  archiveWorkspace: {
    action: 'workspace.archived',
    run: (c) => inject(c, 'POST', `/v1/workspaces/${c.workspaceId}/archive`),
  },
};

t.test('every administrative change of the landed plugins writes an audit entry', async (t) => {
  const app = await auditApp(t);
  const owner = await signUp(app, { orgName: 'Walker' });
  await setPlan(app, owner.organization.id, 'enterprise');
  const member = await addMember(app, owner, { role: 'reviewer' });
  const c: Ctx = { app, owner, workspaceId: '', memberId: member.user.id, invitationId: '', tokenId: '' };

  const admin = app.server
    .table()
    .filter((r) => r.method !== 'get' && (r.settings.tags ?? []).some((tag) => SECTIONS.has(tag)))
    .filter((r) => {
      const roles = r.settings.plugins?.patchwell?.roles;
      return !!roles && roles.every((x) => x === 'owner' || x === 'admin');
    })
    .map((r) => String(r.settings.id));
  const unknown = admin.filter((id) => !SCENARIOS[id] && !NOT_CHANGES[id] && !PEER_OPERATIONS.has(id));
  t.same(unknown, [], 'each administrative operation is walked or explained');
  for (const [plugin, operations] of Object.entries(NEEDS_A_PEER)) {
    const dir = join(root, 'plugins', plugin);
    const source = readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.includes('test'))
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('\n');
    for (const [id, [action, needs]] of Object.entries(operations)) {
      t.ok(source.includes(`'${action}'`), `${id} (needs ${needs}): ${plugin} records ${action}`);
    }
  }

  for (const [id, s] of Object.entries(SCENARIOS)) {
    if (!admin.includes(id)) continue; // a plugin that is off
    const before = new Date();
    const res = await s.run(c);
    t.ok(
      res.statusCode >= 200 && res.statusCode < 300,
      `${id} answers ${res.statusCode} ${res.statusCode >= 300 ? res.payload : ''}`,
    );
    const rows = await app
      .db('audit_entries')
      .where({ org_id: owner.organization.id })
      .where('created_at', '>=', before)
      .select<Array<{ action: string; actor_id: string | null }>>('action', 'actor_id');
    const found = rows.find((r) => (typeof s.action === 'string' ? r.action === s.action : s.action.test(r.action)));
    t.ok(found, `${id} is audited as ${String(s.action)} (got ${rows.map((r) => r.action).join(', ') || 'nothing'})`);
    if (found) t.equal(found.actor_id, owner.user.id, `${id}: the entry names who did it`);
  }
});
