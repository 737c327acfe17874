import { FixRelease } from '../models/index.js';
import type { FixesDeps } from './deps.js';

/** The CI state of released commits, written by the `releasing` step and by the `codehost.ci_updated` consumer. */
export class ReleaseCi {
  constructor(private readonly d: FixesDeps) {}

  /** Reads the CI state of the release's commit again; the row is updated when it changed. Host errors keep the stored state. */
  async refreshCi(rel: FixRelease): Promise<FixRelease | undefined> {
    const host = this.d.codeHost;
    const repos = this.d.repositories;
    if (!host || !repos || !rel.repository_id || !rel.merge_sha) return undefined;
    try {
      const ci = await host.getCommitStatus(await repos.ref(rel.org_id, rel.repository_id), rel.merge_sha);
      if (ci.state === rel.ci_state) return rel;
      return await FixRelease.query(this.d.db).forOrg(rel.org_id).patchAndFetchById(rel.id, { ci_state: ci.state });
    } catch (err) {
      this.d.log.warn({ err, release_id: rel.id }, 'release CI state not read');
      return undefined;
    }
  }

  /** `codehost.ci_updated`: the releases at that commit take the new CI state. */
  async onCiUpdated(orgId: string, repositoryId: string, sha: string): Promise<void> {
    const rels = await FixRelease.query(this.d.db)
      .forOrg(orgId)
      .where({ repository_id: repositoryId, merge_sha: sha })
      .whereNull('batch_id');
    for (const rel of rels) await this.refreshCi(rel);
  }
}
