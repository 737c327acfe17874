import t from 'tap';
import type { AgentJob, CodeHit } from '../../../core/contracts/index.js';
import {
  kitJob,
  recordingIO,
  runAgentExecutorContract,
  checkJobResult,
} from '../../../test/contracts/agent-executor.js';
import { NaiveBayes, loadSamples } from '../classifier.js';
import mod, { BuiltinAgentExecutor, searchTerms } from '../index.js';

const create = () => new BuiltinAgentExecutor(BuiltinAgentExecutor.validateOptions({}));

t.test('agent-builtin passes the AgentExecutor contract kit', (t) =>
  runAgentExecutorContract(t, {
    name: 'agent-builtin',
    mode: 'builtin',
    completes: true,
    create,
    module: mod,
    validateOptions: (o) => BuiltinAgentExecutor.validateOptions(o),
    options: {
      valid: { maxConcurrentJobs: 2 },
      invalid: [{ options: { maxConcurrentJobs: 0 }, key: 'maxConcurrentJobs' }],
    },
  }),
);

t.test('the classifier is accurate and calibrated on held-out samples (5-fold cross-validation)', (t) => {
  const samples = loadSamples();
  t.ok(samples.some((s) => s.language === 'it') && samples.some((s) => s.language === 'en'), 'en and it samples');
  const full = new NaiveBayes(samples);
  const cv = NaiveBayes.crossValidate(samples, 5);
  let right = 0;
  const bins = Array.from({ length: 5 }, () => ({ n: 0, right: 0, conf: 0 }));
  for (const { sample, model } of cv) {
    const p = model.predict(sample.text, full.temperature);
    const ok = p.category === sample.category;
    if (ok) right++;
    const b = bins[Math.min(4, Math.floor(p.confidence * 5))];
    b.n++;
    b.right += ok ? 1 : 0;
    b.conf += p.confidence;
  }
  const accuracy = right / cv.length;
  const ece = bins.reduce((sum, b) => sum + (b.n ? (b.n / cv.length) * Math.abs(b.right / b.n - b.conf / b.n) : 0), 0);
  t.ok(accuracy >= 0.7, `accuracy ${accuracy.toFixed(2)} ≥ 0.70`);
  t.ok(ece <= 0.2, `expected calibration error ${ece.toFixed(3)} ≤ 0.20`);
  const p = full.predict('Quando clicco Salva compare TypeError: x is undefined');
  t.equal(p.category, 'bug');
  t.ok(Math.abs(Object.values(p.probabilities).reduce((a, b) => a + b, 0) - 1) < 1e-9, 'probabilities sum to 1');
  t.same(full.predict('Quando clicco Salva compare TypeError: x is undefined'), p, 'deterministic');
  t.equal(full.predict('zzqx wvvy').category, 'unknown', 'nothing known: unknown');
  t.end();
});

t.test('a request no category fits is a diagnosis without confidence, asking for more', async (t) => {
  const io = recordingIO();
  const j = job(
    'Same problem as issue #3',
    'Hi,\n\nI have the problem described in issue #3 of acme/shop. Is there a fix?\n\nThanks',
    'en',
  );
  await create().start(j, io);
  const r = io.results[0];
  t.same(checkJobResult(r, j), [], 'well-formed');
  t.equal(r.diagnosis?.category, 'unknown');
  t.equal(r.diagnosis?.confidence, 0, 'not "99%": the classifier being sure nothing fits is not a diagnosis');
  t.match(r.diagnosis?.root_cause_md, /No category fits/);
  t.equal(r.drafts?.[0]?.kind, 'needs_info');
});

const job = (subject: string, body: string, language?: string): AgentJob => ({
  ...kitJob('diagnose'),
  ticket: { id: 'tkt_1', subject, body, origin: 'email', ...(language ? { language } : {}) },
});

t.test('a usage question grounded in the docs gets a reply draft quoting them, in the ticket language', async (t) => {
  const docHit: CodeHit = {
    path: 'docs/export.md',
    line_start: 3,
    line_end: 6,
    symbol: 'Export to CSV',
    url: 'http://h/docs/export.md#L3',
    snippet: 'Open Reports, then choose Export → CSV.',
  };
  for (const [lang, subject, hello] of [
    ['en', 'How do I export my invoices to CSV?', /^Hello/],
    ['it', 'Come faccio a esportare le fatture in CSV?', /^Buongiorno/],
  ] as const) {
    const io = Object.assign(recordingIO(), {
      tools: { searchCode: (q: string) => Promise.resolve(/export|espor|csv/i.test(q) ? [docHit] : []) },
    });
    const j = job(subject, '', lang);
    await create().start(j, io);
    const r = io.results[0];
    t.same(checkJobResult(r, j), [], 'well-formed');
    t.equal(r.diagnosis?.category, 'usage', lang);
    t.match(r.diagnosis?.references[0], { path: 'docs/export.md', line_start: 3, url: 'http://h/docs/export.md#L3' });
    t.equal(r.drafts?.[0]?.kind, 'reply');
    t.equal(r.drafts?.[0]?.language, lang);
    t.match(r.drafts?.[0]?.body_md, hello);
    t.match(r.drafts?.[0]?.body_md, /> Open Reports, then choose Export → CSV\./);
  }
});

t.test('a question the docs do not answer gets no draft (the loop escalates); a bug points at code', async (t) => {
  const codeHit: CodeHit = {
    path: 'src/login.ts',
    line_start: 10,
    line_end: 20,
    symbol: 'submitLogin',
    snippet: 'form.submit()',
  };
  const io = Object.assign(recordingIO(), { tools: { searchCode: () => Promise.resolve([codeHit]) } });
  await create().start(job('How do I add a second user to my account?', ''), io);
  t.same(io.results[0]?.drafts, [], 'no grounded answer, no draft');
  const io2 = Object.assign(recordingIO(), { tools: { searchCode: () => Promise.resolve([codeHit]) } });
  await create().start(
    job('Login broken', 'When I click Login nothing happens. Console: TypeError: form is null'),
    io2,
  );
  t.equal(io2.results[0]?.diagnosis?.category, 'bug');
  t.match(io2.results[0]?.diagnosis?.root_cause_md, /src\/login\.ts/);
  t.match(io2.results[0]?.diagnosis?.references, [{ path: 'src/login.ts', symbol: 'submitLogin' }]);
  t.ok(
    io2.events.some((e) => e.type === 'classification'),
    'events emitted',
  );
  t.ok(
    searchTerms('TypeError: form is null in handleLoginError').includes('TypeError'),
    'error names are search terms',
  );
});
