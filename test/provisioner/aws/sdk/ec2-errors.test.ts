import t from 'tap';
import { EC2ServiceException } from '@aws-sdk/client-ec2';
import type { CreateError } from '../../../../domain/cloud/errors.js';
import {
  isCreateError,
  isInsufficientCapacityError,
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
import { interpretFleet } from '../../../../provisioner/aws/fleet-result.js';

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

const lt = { LaunchTemplateSpecification: { LaunchTemplateId: 'lt-1', Version: '1' } };

void t.test('a fleet reply with an instance reports it and the ICE offerings that failed', (t) => {
  const outcome = interpretFleet(
    {
      Instances: [
        {
          InstanceIds: ['i-1'],
          InstanceType: 'm5.xlarge',
          Lifecycle: 'spot',
          LaunchTemplateAndOverrides: {
            ...lt,
            Overrides: { InstanceType: 'm5.xlarge', AvailabilityZone: 'b', ImageId: 'ami-1' },
          },
        },
      ],
      Errors: [
        {
          ErrorCode: 'InsufficientInstanceCapacity',
          Lifecycle: 'spot',
          LaunchTemplateAndOverrides: {
            ...lt,
            Overrides: { InstanceType: 'm5.large', AvailabilityZone: 'a' },
          },
        },
        {
          ErrorCode: 'InvalidParameterValue',
          LaunchTemplateAndOverrides: {
            ...lt,
            Overrides: { InstanceType: 'x' as never, AvailabilityZone: 'a' },
          },
        },
      ],
    },
    'spot',
    'launching nodeclaim a',
  );
  t.same(outcome.launched, {
    instanceId: 'i-1',
    instanceType: 'm5.xlarge',
    zone: 'b',
    capacityType: 'spot',
    imageId: 'ami-1',
  });
  t.same(outcome.unavailable, [{ instanceType: 'm5.large', zone: 'a', capacityType: 'spot' }]);
  t.equal(outcome.error, undefined);
  t.end();
});

void t.test('a fleet reply without an instance becomes the matching domain error', (t) => {
  const ice = interpretFleet(
    {
      Errors: [
        {
          ErrorCode: 'InsufficientInstanceCapacity',
          LaunchTemplateAndOverrides: {
            ...lt,
            Overrides: { InstanceType: 'm5.large', AvailabilityZone: 'a' },
          },
        },
      ],
    },
    'on-demand',
    'launching nodeclaim a',
  );
  t.ok(isInsufficientCapacityError(ice.error));
  t.same(ice.unavailable, [{ instanceType: 'm5.large', zone: 'a', capacityType: 'on-demand' }]);
  const auth = interpretFleet(
    { Errors: [{ ErrorCode: 'UnauthorizedOperation', ErrorMessage: 'no' }] },
    'spot',
    'x',
  );
  t.ok(isNodeClassNotReadyError(auth.error));
  const other = interpretFleet(
    { Errors: [{ ErrorCode: 'InvalidParameterValue', ErrorMessage: 'bad' }] },
    'spot',
    'x',
  );
  t.equal((other.error as CreateError).reason, 'InvalidParameterValue');
  const empty = interpretFleet({}, 'spot', 'x');
  t.equal((empty.error as CreateError).reason, 'NoInstanceLaunched');
  t.match(empty.error?.message, /fleet returned no instance/);
  const noPlace = interpretFleet(
    { Errors: [{ ErrorCode: 'InsufficientInstanceCapacity' }] },
    'spot',
    'x',
  );
  t.same(noPlace.unavailable, [], 'an ICE error without type and zone marks nothing');
  t.end();
});
