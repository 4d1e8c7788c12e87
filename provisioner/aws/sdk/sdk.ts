/**
 * Every AWS SDK value nodesmith calls at run time, in one module. Types still come from the client packages.
 *
 * Why one module: each client package's entry point loads every command and model of its service. Importing
 * `@aws-sdk/client-ec2` alone takes about 80 MiB of resident memory, more than the rest of the controller at rest.
 * `npm run build` replaces this module's compiled form with an esbuild bundle of only what is listed here
 * (`build/bundles.mjs`), which takes the four clients to about 40 MiB. Under tsx (tests, `npm run
 * nodesmith`) the packages load as they are. A value used elsewhere must be added here, or the bundle lacks it and
 * the compiled tests fail at import.
 */
export {
  CreateFleetCommand,
  CreateLaunchTemplateCommand,
  DescribeImagesCommand,
  DescribeInstancesCommand,
  DescribeLaunchTemplatesCommand,
  DescribePlacementGroupsCommand,
  EC2Client,
  TerminateInstancesCommand,
  paginateDescribeCapacityReservations,
  paginateDescribeInstanceStatus,
  paginateDescribeInstanceTypeOfferings,
  paginateDescribeInstanceTypes,
  paginateDescribeInstances,
  paginateDescribeSecurityGroups,
  paginateDescribeSpotPriceHistory,
  paginateDescribeSubnets,
} from '@aws-sdk/client-ec2';
export {
  AddRoleToInstanceProfileCommand,
  CreateInstanceProfileCommand,
  DeleteInstanceProfileCommand,
  GetInstanceProfileCommand,
  IAMClient,
  RemoveRoleFromInstanceProfileCommand,
} from '@aws-sdk/client-iam';
export { PricingClient, paginateGetProducts } from '@aws-sdk/client-pricing';
export { DeleteMessageCommand, GetQueueUrlCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
export { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
