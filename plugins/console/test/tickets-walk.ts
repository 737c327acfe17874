/**
 * The state the tickets walk starts from, set up through the API (the signup and onboarding
 * clicks are the foundation's tests): an owner on a plan with fix credits, a workspace in approve
 * mode whose managed agent is a scripted command, and a local repository with a defect and a test.
 */
import type { Test } from 'tap';
import type { Page } from 'playwright-core';
import { onPlan, signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import {
  HOST_SECRET,
  MAIL_SECRET,
  connectRepository,
  createWorkspace,
  receiveEmail,
} from '../../fixes/test/helpers.js';
import type { Schema } from '../../../test/helpers/api-types.js';
import { startConsole, type ConsoleHarness } from './browser.js';

const CART = 'exports.cartTotal = (items) => items.reduce((sum, i) => sum + i.price, 0);\n';
const TEST =
  "const assert = require('node:assert');\nassert.strictEqual(require('./cart.js').cartTotal([{ price: 2, qty: 3 }]), 6);\nconsole.log('cart ok');\n";
// The managed "agent": a scripted command that fixes the defect (as plugins/fixes/test/managed-fix.test.ts).
const AGENT = `echo "fixing cart"; sed -i 's/sum + i.price,/sum + i.price * i.qty,/' cart.js`;

/** A listening service with the fix loop on, the local code host and the scripted managed agent. */
export function startTicketsConsole(t: Test): Promise<ConsoleHarness> {
  return startConsole(t, {
    adapters: {
      codeHost: 'codehost-local',
      agent: ['agent-builtin', 'agent-managed'],
      options: {
        'mail-outbox': { webhookSecret: MAIL_SECRET },
        'codehost-local': { webhookSecret: HOST_SECRET },
        'agent-managed': { command: AGENT },
      },
    },
    plugins: { fixes: { enabled: true, options: { pollMs: 100, leaseMs: 2000, backoffMs: [50, 100] } } },
  });
}

export interface Shop {
  owner: SignedUp;
  workspace: Schema<'Workspace'>;
}

/** An owner with a workspace and its repository, as onboarding leaves them. */
export async function openShop(
  h: ConsoleHarness,
  opts: { locale: 'en' | 'it'; orgName: string; name: string },
): Promise<Shop> {
  const owner = await signUp(h.app, { orgName: opts.orgName, name: opts.name, locale: opts.locale });
  await onPlan(h.app, owner.organization.id, 'growth'); // a managed fix spends a fix credit
  const workspace = await createWorkspace(h.app, owner, opts.orgName, {
    autonomy: 'approve',
    test_command: 'node test.js',
    confidence_threshold: 0.5,
    release_strategy: 'semver',
    github_release_enabled: true,
    locale: opts.locale,
  });
  await connectRepository(h.app, owner, workspace.id, 'shop', {
    'README.md': '# Shop\n',
    'cart.js': CART,
    'test.js': TEST,
  });
  return { owner, workspace };
}

/** A customer writes to the workspace's inbound address (the signed inbound webhook). */
export function customerWrites(h: ConsoleHarness, shop: Shop, subject: string, body: string): Promise<string> {
  return receiveEmail(h.app, shop.workspace.inbound_address, { subject, body });
}

/** A browser window signed in as `who` (the session cookie the API gave them). */
export async function signedInPage(
  h: ConsoleHarness,
  who: SignedUp,
  opts: Parameters<ConsoleHarness['open']>[0],
): Promise<Page> {
  const { context, page } = await h.open(opts);
  await context.addCookies([{ name: 'pw_session', value: who.cookie.split('=')[1], url: h.base }]);
  // The fix loop takes seconds on two shared cores: wait as a person would, a little longer.
  page.setDefaultTimeout(60_000);
  return page;
}

/** Whether the page fits its window's width (nothing but scrollable parts wider than the screen). */
export function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);
}
