import { execFileSync } from 'node:child_process';
import t, { type Test } from 'tap';
import type { AgentJob } from '../../../core/contracts/index.js';
import { checkJobResult, runAgentExecutorContract } from '../../../test/contracts/agent-executor.js';
import { bareRepo, fixJob } from '../../agent-managed/test/helpers.js';
import mod, { ModelAgentExecutor } from '../index.js';
import { createExecutor, diagnoseJob, gitTo, indexTools, ioWith, KEY, peerFor, PRICE, PROTOCOLS } from './helpers.js';

const usd = (input: number, output: number) =>
  Math.round(((input * PRICE.input + output * PRICE.output) / 1e6) * 1e6) / 1e6;

for (const protocol of PROTOCOLS) {
  void t.test(`${protocol} wire protocol`, async (t) => {
    const peer = await peerFor(t, protocol);
    /** Runs `job` on a new executor against the peer: its one result, checked against the contract, and what it sent. */
    const run = async (t: Test, job: AgentJob, io = ioWith(indexTools()), fits = 'the result fits the contract') => {
      const before = peer.requests.length;
      await createExecutor(protocol, peer.baseUrl).start(job, io);
      const r = io.results[0];
      t.same(checkJobResult(r, job), [], fits);
      return { r, io, sent: peer.requests.slice(before) };
    };

    await t.test('agent-model passes the AgentExecutor contract kit against the peer', (t) =>
      runAgentExecutorContract(t, {
        name: 'agent-model',
        mode: 'managed',
        completes: true,
        create: () => createExecutor(protocol, peer.baseUrl),
        module: mod,
        validateOptions: (o) => ModelAgentExecutor.validateOptions(o),
        options: {
          valid: { provider: protocol, baseUrl: peer.baseUrl, model: 'm', sandbox: { mode: 'none' } },
          invalid: [
            { options: { provider: 'gemini' }, key: 'provider' },
            { options: { baseUrl: 'ftp://models.example' }, key: 'baseUrl' },
            { options: { prices: { m: { input: -1, output: 1 } } }, key: 'prices.m.input' },
          ],
        },
      }),
    );

    await t.test(
      'a diagnosis: category, references checked in the code index, cost from the model price',
      async (t) => {
        const job = diagnoseJob(
          'Cart total ignores quantity',
          'Two shirts at 10 € cost 10 € in the cart: total is wrong.',
        );
        const { r, io, sent } = await run(t, job);
        t.match(r, {
          status: 'succeeded',
          diagnosis: { category: 'bug', confidence: 0.86, references: [{ path: 'cart.js', symbol: 'total' }] },
        });
        t.same(r.drafts, [], 'a defect gets no reply draft');
        t.equal(r.cost_usd, usd(1034, 142), 'cost_usd from the tokens and the configured price');
        t.equal(sent.length, 1, 'one model call');
        t.ok(sent[0].stream, 'the answer was streamed');
        t.match(sent[0].authorization, new RegExp(KEY), "the workspace's model key reached the API");
        t.notMatch(JSON.stringify(io.events), KEY, 'the key is in no event');
        t.match(
          JSON.stringify(io.events),
          /credential model_key_a …3c4d5e6f|credential model_key_a …5e6f/,
          'only its last four characters are shown',
        );
      },
    );

    await t.test('a grounded reply in the customer’s language cites the passage it rests on', async (t) => {
      const job = diagnoseJob(
        'Come applico un codice sconto?',
        'Buongiorno, non trovo dove inserire il codice sconto. Grazie',
        {
          ticket: {
            id: 'tkt_model2',
            subject: 'Come applico un codice sconto?',
            body: 'Buongiorno, non trovo dove inserire il codice sconto. Grazie',
            origin: 'email',
            language: 'it',
          },
        },
      );
      const { r } = await run(t, job);
      t.match(r, { status: 'succeeded', diagnosis: { category: 'usage', references: [{ path: 'docs/checkout.md' }] } });
      t.equal(r.drafts?.length, 1, 'one draft');
      t.match(r.drafts![0], { kind: 'reply', language: 'it' });
      t.match(r.drafts![0].body_md, /codice sconto/, 'written in Italian');
      t.match(
        r.drafts![0].body_md,
        /Fonti:\n- \[docs\/checkout\.md\]\(https:\/\/git\.example\/[^)]+\) \(3–6\)/,
        'its sources, linked (a public repository)',
      );
    });

    await t.test(
      'a two-step fix: read, patch, tests in the sandboxed checkout, then verification and push',
      async (t) => {
        const bare = bareRepo(t);
        const job = {
          ...fixJob(),
          ticket: { ...fixJob().ticket, subject: 'Checkout total is wrong for several items' },
        };
        const { r, io } = await run(t, job, ioWith(indexTools(gitTo(bare, 60_000))));
        t.match(r, {
          status: 'succeeded',
          fix: { branch: job.branch, tests_ran: true, tests_passed: true, verify_passed: true, reason: null },
        });
        t.equal(r.cost_usd, usd(1520 + 1690 + 1760 + 1850, 38 + 61 + 12 + 29), 'the four turns are priced');
        const calls = io.events.filter((e) => e.type === 'tool_call');
        t.same(
          calls.map((e) => e.data?.tool),
          ['read_file', 'apply_patch', 'run_tests'],
          'each tool call is a job event',
        );
        t.ok(
          calls.every((e) => e.data?.ok === true),
          'every tool call worked',
        );
        t.ok(
          io.events.some((e) => e.type === 'test_output' && e.message === 'ok'),
          "the tests' output is in the log",
        );
        const pushed = execFileSync('git', ['--git-dir', bare, 'show', `${job.branch}:cart.js`], { encoding: 'utf8' });
        t.match(pushed, /sum \+ i\.price \* i\.qty/, 'the branch holds the patch');
      },
    );

    await t.test('an invalid answer is retried once, then the job fails for the loop to escalate', async (t) => {
      const job = diagnoseJob('Invoices are missing', 'Since Monday the invoices of March are missing from the list.');
      const { r, io, sent } = await run(t, job);
      t.match(r, {
        status: 'failed',
        error: { code: 'invalid_model_output', detail: /src\/invoices\/pdf\.ts.*not in the repository's code index/ },
      });
      t.same(
        sent.map((s) => s.turn),
        [0, 1],
        'two model calls: the answer and the retry',
      );
      t.match(JSON.stringify(sent[1].body), /could not be used: not JSON/, 'the retry names the problem');
      t.equal(io.events.filter((e) => e.type === 'model_output_invalid').length, 2, 'both answers logged as invalid');
    });

    await t.test(
      "a budget overrun stops the tool loop after the turn that passed the job's max_cost_usd",
      async (t) => {
        const bare = bareRepo(t);
        const base = fixJob();
        const job = {
          ...base,
          ticket: { ...base.ticket, subject: 'A very long log to read' },
          limits: { max_minutes: 5, max_cost_usd: 1 },
        };
        const { r, sent } = await run(
          t,
          job,
          ioWith(indexTools(gitTo(bare, 60_000))),
          'the result fits the contract (over the limit only with cost_limit_reached)',
        );
        t.match(r, { status: 'failed', error: { code: 'cost_limit_reached' } });
        t.ok(r.cost_usd > 1, 'the spend is reported');
        t.equal(sent.length, 1, 'no second model turn');
        t.throws(
          () => execFileSync('git', ['--git-dir', bare, 'rev-parse', '--verify', job.branch!], { stdio: 'ignore' }),
          'nothing pushed',
        );
      },
    );

    await t.test('a cancellation while the model thinks ends the job cancelled at once', async (t) => {
      const job = diagnoseJob('The report nobody waits for', 'Something is odd.');
      const io = ioWith(indexTools());
      const executor = createExecutor(protocol, peer.baseUrl);
      const started = Date.now();
      const running = executor.start(job, io);
      setTimeout(() => void executor.cancel(job.id), 300);
      await running;
      t.ok(Date.now() - started < 4000, 'it did not wait for the slow answer');
      t.match(io.results, [{ status: 'cancelled' }]);
    });
  });
}

void t.test('without streaming, the plain response body is read the same way', async (t) => {
  const peer = await peerFor(t, 'openai');
  const io = ioWith(indexTools());
  await createExecutor('openai', peer.baseUrl, { stream: false }).start(
    diagnoseJob('Cart total ignores quantity', 'The total is wrong.'),
    io,
  );
  t.match(io.results[0], { status: 'succeeded', diagnosis: { category: 'bug' } });
  t.equal(peer.requests[0]?.stream, false, 'not streamed');
});

void t.test('a messages API without a key fails the job before any call, naming the missing credential', async (t) => {
  const peer = await peerFor(t, 'anthropic');
  const io = ioWith(indexTools());
  await createExecutor('anthropic', peer.baseUrl, {}, null).start(diagnoseJob('Cart total ignores quantity', 'x'), io);
  t.match(io.results, [{ status: 'failed', error: { code: 'no_model_key' } }]);
  t.equal(peer.requests.length, 0, 'no call');
});
