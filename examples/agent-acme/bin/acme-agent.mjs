#!/usr/bin/env node
// A stand-in for a partner's agent CLI, used by the example's tests: reads an AgentJob on stdin,
// answers JSON lines. ACME_MODE=crash exits without a result; ACME_MODE=slow never answers.
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  const job = JSON.parse(input);
  const mode = process.env.ACME_MODE ?? process.argv[2] ?? 'ok';
  console.log(JSON.stringify({ event: { level: 'info', type: 'phase', message: `reading ${job.ticket.id}` } }));
  console.log('plain progress output');
  if (mode === 'crash') process.exit(3);
  if (mode === 'slow') return void setTimeout(() => {}, 600_000);
  const bug = /error|null|crash|fails?/i.test(`${job.ticket.subject} ${job.ticket.body}`);
  console.log(
    JSON.stringify({
      result: {
        status: 'succeeded',
        cost_usd: 0.01,
        diagnosis: {
          category: bug ? 'bug' : 'usage',
          confidence: bug ? 0.8 : 0.55,
          root_cause_md: bug
            ? 'The form element is looked up before it exists.'
            : 'A question about using the product.',
          references: [],
          public_summary: bug ? 'We found the cause and are working on a fix.' : 'We are looking into your question.',
        },
        drafts: [],
      },
    }),
  );
});
