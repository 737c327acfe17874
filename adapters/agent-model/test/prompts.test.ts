import t from 'tap';
import { TICKET_CATEGORIES } from '../../../core/contracts/index.js';
import { jsonOf } from '../diagnose.js';
import { loadPrompt, PROMPT_NAMES, promptVersions, renderPrompt } from '../prompts.js';

void t.test('every prompt file carries its version line and some text', (t) => {
  for (const name of PROMPT_NAMES) {
    const p = loadPrompt(name);
    t.ok(Number.isInteger(p.version) && p.version >= 1, `${name}: version ${p.version}`);
    t.ok(p.text.length > 50, `${name}: text`);
    t.notMatch(p.text, /<!--\s*version/, `${name}: the version line is not sent to the model`);
  }
  t.match(promptVersions(), /^diagnose@\d+ fix@\d+ retry@\d+$/, 'the versions a job ran with, for its log');
  t.end();
});

void t.test('the diagnosis prompt asks for every field of the contract and names every category', (t) => {
  const text = loadPrompt('diagnose').text;
  for (const field of ['category', 'confidence', 'root_cause_md', 'references', 'public_summary', 'drafts', 'cites'])
    t.match(text, `"${field}"`, field);
  for (const c of TICKET_CATEGORIES) t.match(text, `"${c}"`, c);
  t.end();
});

void t.test('placeholders are filled, and a missing value is an error rather than an empty string', (t) => {
  const fix = renderPrompt('fix', { test_command: 'npm test -- --runInBand' });
  t.match(fix, "run_tests: run the project's test command (npm test -- --runInBand)");
  t.notMatch(fix, /\{\{/, 'nothing left unfilled');
  t.throws(() => renderPrompt('diagnose', {}), { message: /no value for \{\{language\}\}/ });
  t.match(renderPrompt('retry', { problems: 'not JSON' }), 'could not be used: not JSON.');
  t.end();
});

void t.test("a model's JSON answer is found inside a code fence or words, and no JSON is an error", (t) => {
  t.same(jsonOf('Here it is:\n```json\n{"a": {"b": 1}}\n```'), { a: { b: 1 } });
  t.throws(() => jsonOf('I think it is a bug.'), { message: /no JSON object/ });
  t.end();
});
