import t from 'tap';
import type { CreateError } from '../../../../domain/cloud/errors.js';
import { isInsufficientCapacityError, isNodeClassNotReadyError } from '../../../../domain/cloud/errors.js';
import { interpretFleet } from '../../../../provisioner/aws/instances/fleet-result.js';

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
