import type { CaseKind, DemoEmail, DemoSource } from '../models.js';
import type { OnboardingDeps, RepositoryRow } from './deps.js';

export interface DemoCase {
  source: DemoSource;
  email: DemoEmail;
  errorGroupId: string | null;
}

const PEOPLE = {
  en: { name: 'Jamie Doe', address: 'jamie.doe@example.com' },
  it: { name: 'Giulia Rossi', address: 'giulia.rossi@example.com' },
};
const DEFECT_QUERIES = ['throw new Error', 'raise', 'panic', 'TODO', 'FIXME'];
const TEST_PATH = /(^|\/)(test|tests|__tests__|spec)\/|\.(test|spec)\.[a-z]+$/i;

/**
 * The demo's case, in order of preference: a real error the workspace's connectors saw, an open
 * issue of the repository, a plausible defect the code index finds (a thrown error or a TODO), a
 * question the README answers. Each becomes the email a customer would send, in the user's language.
 */
export async function chooseCase(
  d: OnboardingDeps,
  orgId: string,
  workspaceId: string,
  repo: RepositoryRow,
  locale: 'en' | 'it',
): Promise<DemoCase | null> {
  const who = PEOPLE[locale];
  const at = d.clock().toISOString();
  const mail = (subject: string, body: string): DemoEmail => ({
    from_name: who.name,
    from_address: who.address,
    subject,
    body,
    received_at: at,
  });
  const it = locale === 'it';
  const name = repo.full_name.split('/').pop() ?? repo.full_name;

  const group = await optionalRow<{ id: string; title: string }>(() =>
    d
      .db('error_groups')
      .where({ org_id: orgId, workspace_id: workspaceId })
      .whereIn('status', ['watching', 'ticketed'])
      .orderBy('last_seen', 'desc')
      .select('id', 'title')
      .first(),
  );
  if (group) {
    return {
      source: { kind: 'real_error', error_group_id: group.id },
      errorGroupId: group.id,
      email: mail(
        it ? `Errore: ${group.title}` : `Error: ${group.title}`,
        it
          ? `Ciao,\n\nusando ${name} vedo questo errore: "${group.title}". Potete aiutarmi?\n\nGrazie`
          : `Hi,\n\nwhile using ${name} I keep getting this error: "${group.title}". Can you help?\n\nThanks`,
      ),
    };
  }
  const issue = await optionalRow<{ number: number; html_url: string | null }>(() =>
    d
      .db('codehost_items')
      .where({ org_id: orgId, repository_id: repo.id, kind: 'issue', state: 'open' })
      .orderBy('created_at', 'desc')
      .select('number', 'html_url')
      .first(),
  );
  if (issue) {
    return {
      source: { kind: 'github_issue', issue_number: issue.number, issue_url: issue.html_url },
      errorGroupId: null,
      email: mail(
        it ? `Ho lo stesso problema della issue #${issue.number}` : `Same problem as issue #${issue.number}`,
        it
          ? `Ciao,\n\nho lo stesso problema descritto nella issue #${issue.number} di ${repo.full_name}${issue.html_url ? ` (${issue.html_url})` : ''}. C'è una soluzione?\n\nGrazie`
          : `Hi,\n\nI have the problem described in issue #${issue.number} of ${repo.full_name}${issue.html_url ? ` (${issue.html_url})` : ''}. Is there a fix?\n\nThanks`,
      ),
    };
  }
  if (d.codeIndex) {
    for (const q of DEFECT_QUERIES) {
      const hits = await d.codeIndex.search(orgId, repo.id, q, { limit: 20 }).catch(() => []);
      const hit = hits.find((h) => !TEST_PATH.test(h.path));
      if (!hit) continue;
      const line =
        hit.snippet
          .split('\n')
          .map((l) => l.trim())
          .find((l) => l.includes(q.trim())) ??
        hit.snippet.split('\n')[0]?.trim() ??
        '';
      const message = /['"`]([^'"`]{3,120})['"`]/.exec(line)?.[1] ?? line.slice(0, 120);
      return {
        source: { kind: 'plausible_defect', path: hit.path, line_start: hit.line_start, line_end: hit.line_end },
        errorGroupId: null,
        email: mail(
          it ? `Errore in ${name}: ${message}` : `Error in ${name}: ${message}`,
          it
            ? `Ciao,\n\nogni tanto ${name} si ferma con questo messaggio:\n\n${message}\n\nSuccede ${hit.symbol ? `in ${hit.symbol}` : 'di continuo'}. Potete controllare?\n\nGrazie`
            : `Hi,\n\nevery now and then ${name} stops with this message:\n\n${message}\n\nIt seems to happen ${hit.symbol ? `in ${hit.symbol}` : 'again and again'}. Could you have a look?\n\nThanks`,
        ),
      };
    }
    const tree = await d.codeIndex.tree(orgId, repo.id).catch(() => []);
    const readme = tree
      .map((f) => f.path)
      .filter((p) => /^(docs\/)?readme(\.[a-z]+)?$/i.test(p))
      .sort((a, b) => a.length - b.length)[0];
    if (readme) {
      return {
        source: { kind: 'readme_question', readme_path: readme },
        errorGroupId: null,
        email: mail(
          it ? `Come si installa ${name}?` : `How do I install ${name}?`,
          it
            ? `Ciao,\n\nvorrei iniziare a usare ${name}. Come lo installo e come lo avvio?\n\nGrazie`
            : `Hi,\n\nI would like to start using ${name}. How do I install it and get it running?\n\nThanks`,
        ),
      };
    }
  }
  return null;
}

export const CASE_KINDS: readonly CaseKind[] = ['real_error', 'github_issue', 'plausible_defect', 'readme_question'];

/** A row of a table another plugin owns (absent when that plugin is off). */
async function optionalRow<T>(q: () => PromiseLike<unknown>): Promise<T | null> {
  try {
    return ((await q()) as T | undefined) ?? null;
  } catch {
    return null;
  }
}
