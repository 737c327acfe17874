import {
  AbstractAgentExecutor,
  adapterModule,
  type AgentExecutorOptions,
  type AgentJob,
  type CodeHit,
  type DraftResult,
  type JobIO,
} from '../../core/contracts/index.js';
import { defaultClassifier, features } from './classifier.js';
import { groundedReply, languageOf, needsInfo, publicSummary, rootCause } from './texts.js';

const DOC_PATH = /(?:^|\/)(?:docs?|documentation|guides?)\/|(?:^|\/)readme(?:\.[a-z]+)?$|\.(?:md|mdx|rst|txt|adoc)$/i;
/** Categories a grounded documentation passage can answer. */
const ANSWERABLE = new Set(['usage', 'config', 'docs']);

/** Search words of a report: identifiers and error names first, then its longest plain words. */
export function searchTerms(text: string): string[] {
  const idents = text.match(/\b[A-Za-z_][A-Za-z0-9_]*(?:[A-Z][a-z0-9]+|_[a-z0-9]+)+\b|\b\w+Error\b/g) ?? [];
  const words = features(text)
    .filter((f) => f.startsWith('w:'))
    .map((f) => f.slice(2))
    .filter((w) => w.length >= 4);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const w of [...idents, ...words.sort((a, b) => b.length - a.length)]) {
    const k = w.toLowerCase();
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(w);
  }
  return out.slice(0, 12);
}

/**
 * The offline executor: diagnoses a ticket without any model service. A naive Bayes classifier
 * trained on the shipped en/it sample file gives the category and a calibrated confidence; the
 * job's code index gives references; a question the repository's documentation answers gets a
 * reply draft quoting it, in the ticket's language; a report with nothing to go on gets a
 * needs_info draft; anything else is left to the loop (fix or escalation). Deterministic.
 */
export class BuiltinAgentExecutor extends AbstractAgentExecutor<AgentExecutorOptions> {
  static override identifier = 'agent-builtin';
  readonly mode = 'builtin' as const;
  readonly capabilities = { diagnose: true, fix: false };

  protected async run(job: AgentJob, io: JobIO): Promise<void> {
    if (io.isCancelled()) return io.complete({ status: 'cancelled', cost_usd: 0 });
    const text = `${job.ticket.subject}\n${job.ticket.body}`;
    const lang = languageOf(text, job.ticket.language);
    const prediction = defaultClassifier().predict(text);
    await io.emit({
      level: 'info',
      type: 'classification',
      message: `category ${prediction.category} (confidence ${prediction.confidence})`,
      data: { probabilities: prediction.probabilities },
    });

    const terms = searchTerms(text);
    const hits = await this.search(io, terms);
    await io.emit({
      level: 'info',
      type: 'code_search',
      message: `${hits.length} place(s) found in the repository`,
      data: { terms, paths: hits.map((h) => h.path) },
    });
    if (io.isCancelled()) return io.complete({ status: 'cancelled', cost_usd: 0 });

    const docs = hits.filter((h): h is CodeHit & { snippet: string } => DOC_PATH.test(h.path) && !!h.snippet?.trim());
    const code = hits.filter((h) => !DOC_PATH.test(h.path));
    const drafts: DraftResult[] = [];
    // A customer can open the passage's link only in a public repository; a private one's reply names the file alone.
    const passage = docs[0] && !job.repository?.is_public ? { ...docs[0], url: undefined } : docs[0];
    if (ANSWERABLE.has(prediction.category) && passage)
      drafts.push({ kind: 'reply', body_md: groundedReply(lang, passage), language: lang });
    else if (prediction.category === 'unknown')
      drafts.push({ kind: 'needs_info', body_md: needsInfo(lang), language: lang });

    const references = (prediction.category === 'bug' ? [...code, ...docs] : [...docs, ...code])
      .slice(0, 5)
      .map((h) => ({
        path: h.path,
        ...(h.line_start ? { line_start: h.line_start } : {}),
        ...(h.line_end ? { line_end: h.line_end } : {}),
        ...(h.symbol ? { symbol: h.symbol } : {}),
        ...(h.url ? { url: h.url } : {}),
      }));
    // `unknown` is no diagnosis: the classifier may be sure a text fits no category (a greeting, a bare issue
    // link), but a ticket page showing "unknown, confidence 99%" reads as a confident answer. The team decides.
    const confidence = prediction.category === 'unknown' ? 0 : prediction.confidence;
    await io.complete({
      status: 'succeeded',
      diagnosis: {
        category: prediction.category,
        confidence,
        root_cause_md: rootCause(prediction.category, confidence, terms, references),
        references,
        public_summary: publicSummary(lang, prediction.category),
      },
      drafts,
      cost_usd: 0,
    });
  }

  private async search(io: JobIO, terms: string[]): Promise<CodeHit[]> {
    if (!io.tools || terms.length === 0) return [];
    const found = new Map<string, CodeHit>();
    // The whole phrase first (best ranked), then the strongest single terms.
    for (const q of [terms.slice(0, 6).join(' OR '), ...terms.slice(0, 4)]) {
      for (const h of await io.tools.searchCode(q, 5)) {
        const key = `${h.path}:${h.line_start ?? 0}`;
        if (!found.has(key)) found.set(key, h);
      }
      if (found.size >= 8) break;
    }
    return [...found.values()];
  }
}

export default adapterModule('agent', BuiltinAgentExecutor);
