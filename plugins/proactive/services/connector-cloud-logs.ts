import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { ConnectorSetup } from '../models.js';

/** The workspace's cloud-logs setup (its external id), made on first use; a concurrent first use keeps one row. */
export async function cloudLogsSetupOf(trx: Knex, orgId: string, workspaceId: string): Promise<ConnectorSetup> {
  const found = await ConnectorSetup.query(trx)
    .forOrg(orgId)
    .where({ workspace_id: workspaceId, kind: 'cloud_logs' })
    .limit(1)
    .first();
  if (found) return found;
  await trx('connector_setups')
    .insert({
      id: newId(ConnectorSetup.idPrefix),
      org_id: orgId,
      workspace_id: workspaceId,
      kind: 'cloud_logs',
      external_id: `pw-${randomBytes(16).toString('hex')}`,
    })
    .onConflict(['workspace_id', 'kind'])
    .ignore();
  return (await ConnectorSetup.query(trx)
    .forOrg(orgId)
    .where({ workspace_id: workspaceId, kind: 'cloud_logs' })
    .limit(1)
    .first())!;
}

/** The trust and permissions policies a customer pastes on the role our principal assumes with this external id. */
export function cloudLogsPolicies(
  principalArn: string,
  externalId: string,
): { external_id: string; principal_arn: string; trust_policy: string; permissions_policy: string } {
  const trust = {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Principal: { AWS: principalArn },
        Action: 'sts:AssumeRole',
        Condition: { StringEquals: { 'sts:ExternalId': externalId } },
      },
    ],
  };
  const permissions = {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: ['logs:FilterLogEvents', 'logs:DescribeLogGroups', 'logs:DescribeLogStreams'],
        Resource: '*',
      },
    ],
  };
  return {
    external_id: externalId,
    principal_arn: principalArn,
    trust_policy: JSON.stringify(trust, null, 2),
    permissions_policy: JSON.stringify(permissions, null, 2),
  };
}
