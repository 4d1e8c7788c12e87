import t from 'tap';
import type { DomainError } from '../../../domain/cloud/errors.js';
import {
  CreateError,
  errorLabel,
  ignoreNotFound,
  InsufficientCapacityError,
  isCreateError,
  isDomainError,
  isInsufficientCapacityError,
  isNodeClaimNotFoundError,
  isNodeClassNotReadyError,
  isQueueUnavailableError,
  isThrottledError,
  NodeClaimNotFoundError,
  NodeClassNotReadyError,
  QueueUnavailableError,
  ThrottledError,
} from '../../../domain/cloud/errors.js';

const offering = { instanceType: 'm5.large', zone: 'us-west-2a', capacityType: 'spot' } as const;

void t.test('each error has its literal code, its class name and keeps its cause', (t) => {
  const cause = new Error('RequestLimitExceeded');
  const cases: [DomainError, string][] = [
    [
      new InsufficientCapacityError('launching nodeclaim a: no capacity', [offering], { cause }),
      'InsufficientCapacity',
    ],
    [new NodeClaimNotFoundError('instance x not found', { cause }), 'NodeClaimNotFound'],
    [
      new NodeClassNotReadyError('resolving ec2nodeclass d: no subnet', { cause }),
      'NodeClassNotReady',
    ],
    [new CreateError('launching nodeclaim a: bad', 'InvalidParameter', { cause }), 'CreateError'],
    [new ThrottledError('creating fleet: throttled', { cause }), 'Throttled'],
    [new QueueUnavailableError('receiving messages: no such queue', 'not_found', { cause }), 'QueueUnavailable'],
  ];
  for (const [e, code] of cases) {
    t.equal(e.code, code);
    t.equal(e.name, e.constructor.name);
    t.equal(e.cause, cause);
    t.ok(e instanceof Error && isDomainError(e));
    t.equal(errorLabel(e), code);
  }
  t.end();
});

void t.test('the is-helpers tell the errors apart and reject anything else', (t) => {
  const ice = new InsufficientCapacityError('x', [offering]);
  t.same(ice.offerings, [offering]);
  t.ok(isInsufficientCapacityError(ice));
  t.notOk(isInsufficientCapacityError(new Error('x')));
  t.ok(isNodeClaimNotFoundError(new NodeClaimNotFoundError('x')));
  t.notOk(isNodeClaimNotFoundError(ice));
  t.ok(isNodeClassNotReadyError(new NodeClassNotReadyError('x')));
  t.notOk(isNodeClassNotReadyError('NodeClassNotReady'));
  const create = new CreateError('x', 'InvalidParameter');
  t.ok(isCreateError(create));
  t.equal(create.reason, 'InvalidParameter');
  t.notOk(isCreateError(undefined));
  t.ok(isThrottledError(new ThrottledError('x')));
  t.notOk(isThrottledError({ code: 'Throttled' }));
  const queue = new QueueUnavailableError('x', 'access_denied');
  t.ok(isQueueUnavailableError(queue));
  t.equal(queue.reason, 'access_denied');
  t.notOk(isQueueUnavailableError(create), 'two errors that carry a reason are still told apart');
  t.notOk(isCreateError(queue));
  t.equal(errorLabel(new Error('raw')), 'Unknown');
  t.end();
});

void t.test('ignoreNotFound swallows only NodeClaimNotFoundError', (t) => {
  t.doesNotThrow(() => {
    ignoreNotFound(new NodeClaimNotFoundError('gone'));
  });
  const other = new ThrottledError('slow down');
  t.throws(() => {
    ignoreNotFound(other);
  }, other);
  t.end();
});
