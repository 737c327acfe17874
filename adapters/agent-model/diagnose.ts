import Joi from 'joi';
import type { ModelMessage } from 'ai';
import {
  diagnosisResultSchema,
  draftResultSchema,
  TICKET_CATEGORIES,
  type CodeHit,
  type DiagnosisResult,
  type DraftResult,
  type JobResult,
} from '../../core/contracts/index.js';
import { searchTerms } from '../agent-builtin/index.js';
import { languageOf, type Lang } from '../agent-builtin/texts.js';
import { converse } from './model.js';
import { renderPrompt } from './prompts.js';
import { callSettings, modelError, stopped, type RunContext } from './run-context.js';

/** A passage of the repository the model may rest on, numbered from 1 in the prompt. */
export interface Passage extends CodeHit {
  n: number;
}

interface Answer {
  category: DiagnosisResult['category'];
  confidence: number;
  root_cause_md: string;
  references: Array<{ path: string; line_start?: number; line_end?: number; symbol?: string }>;
  public_summary?: string;
  drafts: Array<{ kind: DraftResult['kind']; language?: string; body_md: string; cites: number[] }>;
}

/** The model's answer as asked by prompts/diagnose.md (unknown fields are dropped). */
const answerSchema = Joi.object<Answer>({
  category: Joi.string()
    .valid(...TICKET_CATEGORIES)
    .required(),
  confidence: Joi.number().min(0).max(1).required(),
  root_cause_md: Joi.string().trim().min(1).required(),
  references: Joi.array()
    .items(
      Joi.object({
        path: Joi.string().trim().min(1).required(),
        line_start: Joi.number().integer().min(1),
        line_end: Joi.number().integer().min(1),
        symbol: Joi.string().allow(''),
      }).unknown(true),
    )
    .max(20)
    .required(),
  public_summary: Joi.string().trim().min(1),
  drafts: Joi.array()
    .items(
      Joi.object({
        kind: Joi.string().valid('reply', 'needs_info', 'interim').required(),
        language: Joi.string(),
        body_md: Joi.string().trim().min(1).required(),
        cites: Joi.array().items(Joi.number().integer().min(1)).default([]),
      }).unknown(true),
    )
    .max(2)
    .default([]),
}).unknown(true);

const SOURCES: Record<Lang, string> = { en: 'Sources', it: 'Fonti' };
const LANGUAGE_NAMES: Record<Lang, string> = { en: 'English (en)', it: 'Italian (it)' };

/** The places of the repository a report concerns: the whole phrase first, then its strongest terms (as agent-builtin). */
async function passagesFor(ctx: RunContext, text: string): Promise<Passage[]> {
  const tools = ctx.io.tools;
  const terms = searchTerms(text);
  if (!tools || terms.length === 0) return [];
  const found = new Map<string, CodeHit>();
  for (const q of [terms.slice(0, 6).join(' OR '), ...terms.slice(0, 4)]) {
    for (const h of await tools.searchCode(q, 5)) {
      const key = `${h.path}:${h.line_start ?? 0}`;
      if (!found.has(key)) found.set(key, h);
    }
    if (found.size >= 8) break;
  }
  // A customer can open a passage's link only in a public repository.
  const isPublic = !!ctx.job.repository?.is_public;
  return [...found.values()].slice(0, 8).map((h, i) => ({ ...h, ...(isPublic ? {} : { url: undefined }), n: i + 1 }));
}

function where(p: CodeHit): string {
  return p.line_start ? `${p.path} (lines ${p.line_start}–${p.line_end ?? p.line_start})` : p.path;
}

function reportMessage(ctx: RunContext, lang: Lang, passages: Passage[]): string {
  const { ticket } = ctx.job;
  const parts = [
    `Customer report (the customer's language: ${LANGUAGE_NAMES[lang]}; origin: ${ticket.origin})`,
    `Subject: ${ticket.subject}`,
    '',
    ticket.body,
    '',
    `What to do: ${ctx.job.instructions}`,
    '',
  ];
  if (passages.length === 0)
    parts.push('Passages of the repository: none (no code index, or nothing matched). Give no references.');
  else {
    parts.push('Passages of the repository (cite them by number):');
    for (const p of passages)
      parts.push(`[${p.n}] ${where(p)}${p.symbol ? ` ${p.symbol}` : ''}\n${(p.snippet ?? '').slice(0, 1500)}`);
  }
  if (ticket.error_context) parts.push('', `Error context: ${JSON.stringify(ticket.error_context).slice(0, 4000)}`);
  return parts.join('\n');
}

/** The JSON object of a model's text (a code fence or words around it are tolerated). */
export function jsonOf(text: string): unknown {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) throw new Error('the answer holds no JSON object');
  return JSON.parse(text.slice(start, end + 1)) as unknown;
}

/** Whether a path exists in the job's code index (a passage shown, or a search for the path itself). */
async function indexed(ctx: RunContext, path: string, passages: Passage[]): Promise<boolean> {
  if (passages.some((p) => p.path === path)) return true;
  const tools = ctx.io.tools;
  if (!tools) return false;
  const hits = await tools.searchCode(path, 5);
  return hits.some((h) => h.path === path);
}

export interface Checked {
  diagnosis: DiagnosisResult;
  drafts: DraftResult[];
}

/** Checks a model's answer: its shape, references that exist, reply drafts that cite passages, the customer's language. */
export async function checkAnswer(
  ctx: RunContext,
  text: string,
  passages: Passage[],
  lang: Lang,
): Promise<Checked | string[]> {
  let raw: unknown;
  try {
    raw = jsonOf(text);
  } catch (err) {
    return [`not JSON (${(err as Error).message})`];
  }
  const checked: Joi.ValidationResult<Answer> = answerSchema.validate(raw, {
    abortEarly: false,
    stripUnknown: true,
    convert: true,
  });
  if (checked.error) return checked.error.details.map((d) => d.message);
  const value = checked.value;
  const problems: string[] = [];
  for (const r of value.references)
    if (!(await indexed(ctx, r.path, passages)))
      problems.push(`reference "${r.path}" is not in the repository's code index`);
  const drafts: DraftResult[] = [];
  for (const d of value.drafts) {
    const language = d.language ?? lang;
    if (language !== lang) problems.push(`draft in "${language}": write it in the customer's language "${lang}"`);
    if (d.kind !== 'reply') {
      drafts.push({ kind: d.kind, body_md: d.body_md, language: lang });
      continue;
    }
    const cited = [...new Set(d.cites)].map((n) => passages.find((p) => p.n === n));
    if (cited.length === 0) problems.push('a reply draft must cite the passages it rests on ("cites")');
    if (cited.some((p) => !p)) problems.push(`"cites" names passages that do not exist (1..${passages.length})`);
    const sources = cited
      .filter((p): p is Passage => !!p)
      .map(
        (p) =>
          `- ${p.url ? `[${p.path}](${p.url})` : `\`${p.path}\``}${p.line_start ? ` (${p.line_start}–${p.line_end ?? p.line_start})` : ''}`,
      );
    drafts.push({ kind: 'reply', body_md: `${d.body_md}\n\n${SOURCES[lang]}:\n${sources.join('\n')}`, language: lang });
  }
  if (problems.length) return problems;
  const diagnosis: DiagnosisResult = {
    category: value.category,
    // `unknown` is no diagnosis: a confident "unknown" reads as a confident answer (as agent-builtin).
    confidence: value.category === 'unknown' ? 0 : value.confidence,
    root_cause_md: value.root_cause_md,
    references: value.references.map((r) => {
      const p = passages.find((x) => x.path === r.path);
      return {
        path: r.path,
        ...(r.line_start ? { line_start: r.line_start } : {}),
        ...(r.line_end ? { line_end: r.line_end } : {}),
        ...(r.symbol ? { symbol: r.symbol } : {}),
        ...(p?.url ? { url: p.url } : {}),
      };
    }),
    ...(value.public_summary ? { public_summary: value.public_summary } : {}),
  };
  const shape = [
    ...(diagnosisResultSchema.validate(diagnosis).error?.details ?? []),
    ...drafts.flatMap((d) => draftResultSchema.validate(d).error?.details ?? []),
  ].map((d) => d.message);
  return shape.length ? shape : { diagnosis, drafts };
}

/**
 * A diagnosis by the model: passages of the code index in the prompt, one JSON answer checked
 * (checkAnswer), retried once with the problems named; a second invalid answer fails the job
 * (`invalid_model_output`), which the loop escalates to the team.
 */
export async function diagnose(ctx: RunContext, limitMs: number): Promise<JobResult> {
  const { job, io } = ctx;
  const text = `${job.ticket.subject}\n${job.ticket.body}`;
  const lang = languageOf(text, job.ticket.language);
  const passages = await passagesFor(ctx, text);
  await io.emit({
    level: 'info',
    type: 'code_search',
    message: `${passages.length} passage(s) of the repository for the model`,
    data: { paths: passages.map((p) => p.path) },
  });
  const system = renderPrompt('diagnose', { language: LANGUAGE_NAMES[lang] });
  const messages: ModelMessage[] = [{ role: 'user', content: reportMessage(ctx, lang, passages) }];
  let problems: string[] = [];
  for (let attempt = 1; attempt <= 2; attempt++) {
    let answer: string;
    try {
      const r = await converse({ ...callSettings(ctx), system, messages });
      answer = r.text;
      messages.push(...r.messages);
    } catch (err) {
      const reason = ctx.stopReason();
      return reason ? stopped(ctx, reason, limitMs) : modelError(ctx, err);
    }
    const reason = ctx.stopReason() ?? ctx.checkLimits();
    if (reason) return stopped(ctx, reason, limitMs);
    const checked = await checkAnswer(ctx, answer, passages, lang);
    if (!Array.isArray(checked)) {
      await io.emit({
        level: 'info',
        type: 'classification',
        message: `category ${checked.diagnosis.category} (confidence ${checked.diagnosis.confidence})`,
        data: { references: checked.diagnosis.references.length, drafts: checked.drafts.map((d) => d.kind) },
      });
      return { status: 'succeeded', diagnosis: checked.diagnosis, drafts: checked.drafts, cost_usd: ctx.spend.costUsd };
    }
    problems = checked;
    await io.emit({
      level: 'warn',
      type: 'model_output_invalid',
      message: `the model's answer was not a valid diagnosis (attempt ${attempt} of 2): ${problems.join('; ').slice(0, 1000)}`,
      data: { attempt, problems },
    });
    messages.push({ role: 'user', content: renderPrompt('retry', { problems: problems.join('; ') }) });
  }
  return ctx.end(
    'failed',
    'invalid_model_output',
    `the model's answer was not a valid diagnosis twice: ${problems.join('; ').slice(0, 800)}`,
  );
}
