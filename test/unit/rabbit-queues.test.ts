import t from 'tap';
import { declarationsFor, featuresOf, preferredType } from '../../core/bus/rabbit-queues.js';

const queues = { main: 'E.n', retry: 'E.n.retry', dead: 'E.n.dead' };

void t.test('auto picks quorum from RabbitMQ 3.8, classic before or when the version is unknown', (t) => {
  t.equal(preferredType('auto', featuresOf('3.10.8')), 'quorum');
  t.equal(preferredType('auto', featuresOf('3.8.0')), 'quorum');
  t.equal(preferredType('auto', featuresOf('3.7.28')), 'classic');
  t.equal(preferredType('auto', featuresOf(null)), 'classic');
  t.equal(preferredType('classic', featuresOf('3.12.1')), 'classic');
  t.equal(preferredType('quorum', featuresOf('4.0.2')), 'quorum');
  t.end();
});

void t.test('quorum queues on 3.10+: at-least-once dead-lettering, retry queue quorum too', (t) => {
  const plan = declarationsFor(queues, 'quorum', featuresOf('3.10.8'));
  t.match(plan.main.arguments, {
    'x-queue-type': 'quorum',
    'x-dead-letter-strategy': 'at-least-once',
    'x-overflow': 'reject-publish',
    'x-dead-letter-routing-key': 'E.n.dead',
  });
  t.match(plan.retry.arguments, { 'x-queue-type': 'quorum', 'x-dead-letter-routing-key': 'E.n' });
  t.same(plan.dead.arguments, { 'x-queue-type': 'quorum' });
  t.end();
});

void t.test('quorum queues on 3.8/3.9: the retry queue stays classic (no per-message TTL there)', (t) => {
  const plan = declarationsFor(queues, 'quorum', featuresOf('3.9.29'));
  t.equal(plan.main.arguments['x-queue-type'], 'quorum');
  t.notOk('x-dead-letter-strategy' in plan.main.arguments);
  t.same(plan.retry.arguments, { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': 'E.n' });
  t.end();
});

void t.test('classic queues are declared as before quorum support existed', (t) => {
  const plan = declarationsFor(queues, 'classic', featuresOf('3.10.8'));
  t.same(plan.main.arguments, { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': 'E.n.dead' });
  t.same(plan.retry.arguments, { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': 'E.n' });
  t.same(plan.dead.arguments, {});
  t.end();
});
