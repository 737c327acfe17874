import type { Test } from 'tap';
import type { App } from '../../../core/kernel/app.js';
import { startTestApp } from '../../../test/helpers/app.js';
import { onPlan, type SignedUp } from '../../../test/helpers/accounts.js';
import type { Ticket } from '../models/index.js';
import type { CreateTicketInput } from '../services/ticket-inputs.js';
import type { TicketService } from '../services/ticket-service.js';
import type { ApiError, Method, Schema } from '../../../test/helpers/api-types.js';
import { call, type Call } from '../../../test/helpers/call.js';
import { createWorkspace, worldOn, type Workspace, type World } from '../../../test/helpers/workspaces.js';
export { call, type ApiError, type Call, type Method, type Schema, type Workspace, type World };

/** A service with an organization, its owner and one workspace made through the API. */
export async function world(
  t: Test,
  overrides: Record<string, unknown> = {},
  ws: Record<string, unknown> = { name: 'Shop', client_name: 'Shop Inc' },
): Promise<World> {
  return worldOn(await startTestApp(t, overrides), ws);
}

/** Another workspace of the organization: it is put on the growth plan, which includes several. */
export async function newWorkspace(app: App, owner: SignedUp, name: string): Promise<Workspace> {
  await onPlan(app, owner.organization.id, 'growth');
  return createWorkspace(app, owner, { name });
}

let seq = 0;

/**
 * Opens a ticket the way an intake plugin will: ticketService.createTicket in a transaction,
 * with an emailed opening message.
 */
export async function openTicket(
  app: App,
  orgId: string,
  workspaceId: string,
  overrides: Partial<CreateTicketInput> = {},
): Promise<Ticket> {
  const service = app.container.resolve<TicketService>('ticketService');
  const n = ++seq;
  return app.db.transaction((trx) =>
    service.createTicket(trx, {
      orgId,
      workspaceId,
      origin: 'email',
      subject: `Checkout fails ${n}`,
      customerEmail: 'jane.doe@example.com',
      customerName: 'Jane Doe',
      message: {
        from: 'jane.doe@example.com',
        fromName: 'Jane Doe',
        to: ['support@shop.example'],
        subject: `Checkout fails ${n}`,
        bodyText: 'When I press pay nothing happens.',
        emailMessageId: `<opening-${n}-${Date.now()}@mail.example.com>`,
      },
      ...overrides,
    }),
  );
}
