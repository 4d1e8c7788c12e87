import t from 'tap';
import { EC2ServiceException } from '@aws-sdk/client-ec2';
import type { CreateError } from '../../../../domain/cloud/errors.js';
import {
  isCreateError,
  isNodeClassNotReadyError,
  isThrottledError,
  NodeClaimNotFoundError,
} from '../../../../domain/cloud/errors.js';
import {
  classifyEc2Error,
  errorCode,
  isNotFoundError,
  isThrottlingError,
} from '../../../../provisioner/aws/sdk/ec2-errors.js';

function sdkError(name: string): EC2ServiceException {
  return new EC2ServiceException({
    name,
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
    message: `${name} happened`,
  });
}

void t.test('the error code comes from the SDK exception name, or a Code field', (t) => {
  t.equal(errorCode(sdkError('RequestLimitExceeded')), 'RequestLimitExceeded');
  t.equal(errorCode({ Code: 'Throttling' }), 'Throttling');
  t.equal(errorCode(new Error('plain')), undefined, 'a non-AWS error has no code');
  t.equal(errorCode('text'), undefined);
  t.equal(errorCode(null), undefined);
  t.end();
});

void t.test('throttling, auth and other codes map to their domain errors', (t) => {
  for (const code of ['RequestLimitExceeded', 'Throttling']) {
    t.ok(isThrottlingError(sdkError(code)), code);
    t.ok(isThrottledError(classifyEc2Error(sdkError(code), 'launching nodeclaim a')), code);
  }
  for (const code of ['UnauthorizedOperation', 'AuthFailure', 'InvalidClientTokenId']) {
    t.ok(isNodeClassNotReadyError(classifyEc2Error(sdkError(code), 'launching nodeclaim a')), code);
  }
  const other = classifyEc2Error(sdkError('InvalidParameterValue'), 'launching nodeclaim a');
  t.ok(isCreateError(other));
  t.equal((other as CreateError).reason, 'InvalidParameterValue');
  t.match(other.message, /^launching nodeclaim a: InvalidParameterValue: /);
  t.equal((classifyEc2Error(new Error('socket hang up'), 'x') as CreateError).reason, 'Unknown');
  const domain = new NodeClaimNotFoundError('gone');
  t.equal(classifyEc2Error(domain, 'x'), domain, 'domain errors pass through unchanged');
  t.ok(isNotFoundError(sdkError('InvalidInstanceID.NotFound')));
  t.notOk(isNotFoundError(sdkError('InvalidParameterValue')));
  t.end();
});
