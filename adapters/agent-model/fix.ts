import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { stepCountIs, tool, type ToolSet } from 'ai';
import { z } from 'zod';
import type { JobEventInput, JobResult } from '../../core/contracts/index.js';
import { commitVerifyPush, runGit, runSandboxed, type Ran } from '../agent-managed/checkout.js';
import { chownTree, type Sandbox } from '../agent-managed/sandbox.js';
import { converse } from './model.js';
import { renderPrompt } from './prompts.js';
import { callSettings, modelError, stopped, type RunContext } from './run-context.js';

export interface FixSettings {
  sandbox: Sandbox;
  workRoot?: string;
  maxSteps: number;
  maxEventLines: number;
  limitMs: number;
  startedAt: number;
}

/** Largest piece of a file read_file hands the model. */
const READ_LIMIT = 40_000;
/** Lines of the tests' output the model reads back (the last ones). */
const TEST_TAIL = 80;

const short = (v: unknown, n = 200): string => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > n ? `${s.slice(0, n)}…` : s;
};

/** A tool's input for its event: long texts (a patch) cut to 500 characters. */
const clipped = (input: unknown): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries((input ?? {}) as Record<string, unknown>).map(([k, v]) => [
      k,
      typeof v === 'string' ? short(v, 500) : v,
    ]),
  );

/** A path the model names, inside the checkout (no absolute path, no `..`, nothing in .git, no link out of it). */
async function inside(work: string, path: string): Promise<string> {
  if (!path || isAbsolute(path)) throw new Error(`"${path}": give a path relative to the repository root`);
  const full = resolve(work, path);
  const rel = relative(work, full);
  if (rel.startsWith('..') || rel === '' || rel.split(sep)[0] === '.git')
    throw new Error(`"${path}" is outside the repository's files`);
  let probe = full;
  for (;;) {
    try {
      const real = await realpath(probe);
      const realRoot = await realpath(work);
      if (real !== realRoot && !real.startsWith(realRoot + sep))
        throw new Error(`"${path}" leads outside the repository`);
      return full;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      probe = dirname(probe); // a new file: check the nearest existing folder
    }
  }
}

/**
 * A fix by the model: a fresh checkout (as agent-managed: clone with a short-lived token, the
 * service-prefixed branch), a bounded tool loop (search_code, read_file, apply_patch, run_tests
 * in the sandbox), then the verification and push every fix executor shares (checkout.ts).
 * Every tool call is a job event. The loop stops at maxSteps, on the job's budget (tokens, cost),
 * at the wall-clock limit or on cancellation, with the reason as the job's error.
 */
export async function fix(ctx: RunContext, s: FixSettings): Promise<JobResult> {
  const { job, io } = ctx;
  if (!job.repository || !io.tools?.gitAccess)
    return ctx.end('failed', 'no_repository', 'the workspace has no repository this executor can check out');
  const tools = io.tools;
  const branch = job.branch ?? `patchwell/${job.ticket.id}`;
  const root = s.workRoot ?? tmpdir();
  await mkdir(root, { recursive: true });
  const dir = await mkdtemp(join(root, 'patchwell-job-'));
  const work = join(dir, 'checkout');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: join(dir, 'home'),
    LANG: 'C.UTF-8',
    CI: '1',
  };
  const handOver = async () => {
    if (s.sandbox.user) await chownTree(dir, s.sandbox.user);
  };
  const remaining = () => Math.max(1000, s.limitMs - (Date.now() - s.startedAt));
  const runTests = async (command: string, onLine?: (line: string) => void): Promise<Ran> => {
    await handOver();
    return runSandboxed({
      sandbox: s.sandbox,
      command,
      cwd: work,
      env,
      limitMs: remaining(),
      io,
      type: 'test_output',
      maxEventLines: s.maxEventLines,
      ...(onLine ? { onLine } : {}),
    });
  };
  try {
    const access = await tools.gitAccess!({ write: true });
    const git = (args: string[]) => runGit(args, work, access);
    await io.emit({
      level: 'info',
      type: 'phase',
      message: `checkout of ${job.repository.full_name} (${job.repository.default_branch})`,
    });
    await runGit(
      ['clone', '--quiet', '--depth', '50', '--branch', job.repository.default_branch, access.cloneUrl, work],
      dir,
      access,
    );
    await git(['checkout', '--quiet', '-B', branch]);
    const base = (await git(['rev-parse', 'HEAD'])).trim();
    await mkdir(env.HOME, { recursive: true });
    await io.emit({ level: 'info', type: 'sandbox', message: `sandbox: ${s.sandbox.describe()}` });

    const event = async (name: string, input: unknown, outcome: { ok: boolean; summary: string }) => {
      const e: JobEventInput = {
        level: outcome.ok ? 'info' : 'warn',
        type: 'tool_call',
        message: `${name} ${short(input, 160)}: ${short(outcome.summary, 300)}`,
        data: { tool: name, input: clipped(input), ok: outcome.ok },
      };
      await io.emit(e).catch(() => undefined);
    };
    /** Runs one tool body; its failure is the tool's answer (the model may try again), never the job's. */
    const call =
      <I>(name: string, body: (input: I) => Promise<string>) =>
      async (input: I): Promise<string> => {
        const reason = ctx.stopReason();
        if (reason) return `stopped: ${reason}`;
        try {
          const out = await body(input);
          await event(name, input, { ok: true, summary: out.split('\n')[0] ?? '' });
          return out;
        } catch (err) {
          const msg = `error: ${(err as Error).message}`;
          await event(name, input, { ok: false, summary: msg });
          return msg;
        }
      };

    const toolset: ToolSet = {
      search_code: tool({
        description: "Search the repository's code index (definitions first, then full text).",
        inputSchema: z.object({ query: z.string().min(1).describe('identifiers, error names or words') }),
        execute: call('search_code', async ({ query }: { query: string }) => {
          const hits = await tools.searchCode(query, 8);
          if (!hits.length) return 'no match';
          return hits
            .map((h) => {
              const lines = h.line_start ? `:${h.line_start}-${h.line_end ?? h.line_start}` : '';
              return `${h.path}${lines}${h.symbol ? ` ${h.symbol}` : ''}\n${(h.snippet ?? '').slice(0, 600)}`;
            })
            .join('\n\n');
        }),
      }),
      read_file: tool({
        description: 'Read a file of the checkout, with line numbers (optionally only lines start_line..end_line).',
        inputSchema: z.object({
          path: z.string().min(1),
          start_line: z.number().int().min(1).optional(),
          end_line: z.number().int().min(1).optional(),
        }),
        execute: call('read_file', async (i: { path: string; start_line?: number; end_line?: number }) => {
          const lines = (await readFile(await inside(work, i.path), 'utf8')).split('\n');
          const from = i.start_line ?? 1;
          const to = Math.min(lines.length, i.end_line ?? lines.length);
          const text = lines
            .slice(from - 1, to)
            .map((l, k) => `${from + k}\t${l}`)
            .join('\n');
          return `${i.path} lines ${from}-${to} of ${lines.length}\n${text.slice(0, READ_LIMIT)}`;
        }),
      }),
      apply_patch: tool({
        description:
          'Replace old_text (exact, found once in the file) with new_text in a file of the checkout; an empty old_text creates a new file.',
        inputSchema: z.object({ path: z.string().min(1), old_text: z.string(), new_text: z.string() }),
        execute: call('apply_patch', async (i: { path: string; old_text: string; new_text: string }) => {
          const full = await inside(work, i.path);
          const current = await readFile(full, 'utf8').catch(() => null);
          if (i.old_text === '') {
            if (current !== null) throw new Error(`${i.path} exists: give the old_text to replace`);
            await mkdir(dirname(full), { recursive: true });
            await writeFile(full, i.new_text);
            return `created ${i.path}`;
          }
          if (current === null) throw new Error(`${i.path} does not exist`);
          const count = current.split(i.old_text).length - 1;
          if (count !== 1) throw new Error(`old_text found ${count} times in ${i.path}: it must be found exactly once`);
          await writeFile(
            full,
            current.replace(i.old_text, () => i.new_text),
          );
          return `patched ${i.path}`;
        }),
      }),
      run_tests: tool({
        description: "Run the project's test command in the checkout and read the end of its output.",
        inputSchema: z.object({}),
        execute: call('run_tests', async () => {
          if (!job.test_command) return 'the workspace has no test command';
          const tail: string[] = [];
          const ran = await runTests(job.test_command, (line) => {
            tail.push(line);
            if (tail.length > TEST_TAIL) tail.shift();
          });
          const state = ran.cancelled ? 'cancelled' : ran.timedOut ? 'timed out' : `exit code ${ran.code}`;
          return `tests: ${state}${ran.code === 0 ? ' (passed)' : ''}\n${tail.join('\n')}`;
        }),
      }),
    };

    await io.emit({ level: 'info', type: 'phase', message: 'model working' });
    try {
      await converse({
        ...callSettings<ToolSet>(ctx),
        system: renderPrompt('fix', { test_command: job.test_command ?? 'none configured' }),
        messages: [
          {
            role: 'user',
            content: `Ticket: ${job.ticket.subject}\n\n${job.ticket.body}\n\nWhat to do: ${job.instructions}\nRepository: ${job.repository.full_name}`,
          },
        ],
        tools: toolset,
        stopWhen: [stepCountIs(s.maxSteps), () => (ctx.stopReason() ?? ctx.checkLimits()) !== null],
      });
    } catch (err) {
      const reason = ctx.stopReason();
      return reason ? stopped(ctx, reason, s.limitMs) : modelError(ctx, err);
    }
    const reason = ctx.stopReason() ?? ctx.checkLimits();
    if (reason) {
      await io.emit({ level: 'error', type: 'stopped', message: `the model loop stopped: ${reason}` });
      return stopped(ctx, reason, s.limitMs);
    }
    const result = await commitVerifyPush({ job, io, branch, base, git, runTests: (c) => runTests(c) });
    if (result === 'cancelled') return stopped(ctx, 'cancelled', s.limitMs);
    if (result === 'no_changes') return ctx.end('failed', 'no_changes', 'the model changed nothing');
    return { status: 'succeeded', fix: result, cost_usd: ctx.spend.costUsd };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
