import { pricingApiRegion } from './on-demand-prices.js';
import { EC2Client, IAMClient, PricingClient, SQSClient, SSMClient } from './sdk.js';

/** Where and as whom to call AWS; the same shape reaches real EC2 or moto. */
export interface AwsClientOptions {
  readonly region: string;
  /** e.g. `http://127.0.0.1:4566` for moto; unset for the real regional endpoint. */
  readonly endpoint?: string;
  /** The Pricing API's endpoint; defaults to `endpoint`, else the real one in the nearest pricing region. */
  readonly pricingEndpoint?: string;
  /** Static credentials (tests, moto); unset means the SDK's default provider chain. */
  readonly credentials?: {
    readonly accessKeyId: string;
    readonly secretAccessKey: string;
    readonly sessionToken?: string;
  };
}

export interface AwsClients {
  readonly ec2: EC2Client;
  readonly ssm: SSMClient;
  readonly sqs: SQSClient;
  readonly iam: IAMClient;
  readonly pricing: PricingClient;
  destroy(): void;
}

/**
 * The SDK's own retries are turned off (maxAttempts 1): throttling is retried by our
 * retryThrottled with an injected clock, so backoff is visible to tests and to metrics.
 */
export function createAwsClients(options: AwsClientOptions): AwsClients {
  const config = {
    region: options.region,
    maxAttempts: 1,
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
  };
  const ec2 = new EC2Client(config);
  const ssm = new SSMClient(config);
  const sqs = new SQSClient(config);
  const iam = new IAMClient(config);
  const pricingEndpoint = options.pricingEndpoint ?? options.endpoint;
  const pricing = new PricingClient({ ...config, region: pricingApiRegion(options.region), ...(pricingEndpoint === undefined ? {} : { endpoint: pricingEndpoint }) });
  return {
    ec2,
    ssm,
    sqs,
    iam,
    pricing,
    destroy: () => {
      pricing.destroy();
      iam.destroy();
      ec2.destroy();
      ssm.destroy();
      sqs.destroy();
    },
  };
}
