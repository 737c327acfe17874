import type { RepoRef, SignedInActor } from '../../../core/contracts/index.js';
import { httpError } from '../../../core/http/errors.js';
import type { Guideline, Guidelines, RepositoryModel } from '../models/index.js';
import type { CodehostDeps } from './deps.js';
import { viaHost } from './errors.js';
import type { OssService } from './oss.js';
import type { RepositoryService } from './repositories.js';
import { patchRepositoryAudited } from './repository-audit.js';

const GUIDELINE_DIRS = ['', '.github/', 'docs/'];
const CONTRIBUTING = ['CONTRIBUTING.md', 'CONTRIBUTING', 'CONTRIBUTING.rst', 'CONTRIBUTING.txt', 'contributing.md'];
const CODE_OF_CONDUCT = [
  'CODE_OF_CONDUCT.md',
  'CODE_OF_CONDUCT',
  'CODE_OF_CONDUCT.rst',
  'CODE_OF_CONDUCT.txt',
  'code_of_conduct.md',
];
const EXCERPT_CHARS = 4000;

/**
 * What a repository shows open-source contributors: its guidelines (CONTRIBUTING and
 * CODE_OF_CONDUCT of a public repository, read from the host) and the opt-in and opt-out labels
 * of the workspace's open-source settings, created on the host. Each change is audited.
 */
export class RepositoryOpenSource {
  constructor(
    private readonly d: CodehostDeps,
    private readonly repositories: () => RepositoryService,
    private readonly oss: () => OssService,
  ) {}

  /** POST /v1/repositories/{id}/guidelines: re-reads CONTRIBUTING and CODE_OF_CONDUCT of a public repository. */
  async readGuidelines(actor: SignedInActor, id: string): Promise<RepositoryModel> {
    const principal = actor.principal;
    const row = await this.repositories().load(principal, id);
    if (!row.is_public)
      throw httpError(422, 'repository_not_public', 'Guidelines are read for public repositories only');
    const ref = await this.repositories().ref(principal.orgId, row);
    const guidelines: Guidelines = {
      contributing: await viaHost(() => this.findGuideline(ref, row, CONTRIBUTING)),
      code_of_conduct: await viaHost(() => this.findGuideline(ref, row, CODE_OF_CONDUCT)),
      read_at: new Date().toISOString(),
    };
    return patchRepositoryAudited(
      this.d,
      actor,
      row,
      { guidelines },
      'repository.guidelines_read',
      {
        contributing: row.guidelines?.contributing?.sha ?? null,
        code_of_conduct: row.guidelines?.code_of_conduct?.sha ?? null,
      },
      { contributing: guidelines.contributing?.sha ?? null, code_of_conduct: guidelines.code_of_conduct?.sha ?? null },
    );
  }

  private async findGuideline(ref: RepoRef, row: RepositoryModel, names: string[]): Promise<Guideline | null> {
    for (const dir of GUIDELINE_DIRS) {
      for (const name of names) {
        const file = await this.d.host.readFile(ref, `${dir}${name}`);
        if (!file) continue;
        return {
          path: file.path,
          sha: file.sha,
          html_url:
            this.d.host.identifier === 'codehost-github'
              ? `${row.html_url}/blob/${encodeURIComponent(row.default_branch)}/${file.path}`
              : null,
          excerpt: file.content.toString('utf8').slice(0, EXCERPT_CHARS),
        };
      }
    }
    return null;
  }

  /** POST /v1/repositories/{id}/labels: creates the opt-in and opt-out labels of the workspace's settings. */
  async createLabels(actor: SignedInActor, id: string): Promise<RepositoryModel> {
    const principal = actor.principal;
    const row = await this.repositories().load(principal, id);
    const ref = await this.repositories().ref(principal.orgId, row);
    const settings = await this.oss().settings(this.d.db, principal.orgId, row.workspace_id);
    const { optIn, optOut } = this.d.options.labels;
    await viaHost(() =>
      this.d.host.ensureLabel(ref, { name: settings.opt_in_label, color: optIn.color, description: optIn.description }),
    );
    await viaHost(() =>
      this.d.host.ensureLabel(ref, {
        name: settings.opt_out_label,
        color: optOut.color,
        description: optOut.description,
      }),
    );
    return patchRepositoryAudited(
      this.d,
      actor,
      row,
      { labels_created_at: new Date() },
      'repository.labels_created',
      { labels: null },
      { labels: [settings.opt_in_label, settings.opt_out_label] },
    );
  }
}
