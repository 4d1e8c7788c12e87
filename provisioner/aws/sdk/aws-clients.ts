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
  /**
   * Where the SDK's HTTP handler sends its warnings (every socket busy with requests queued behind them, a request
   * timed out). Unset, they go to the console as plain text, in the middle of the JSON log.
   */
  readonly warn?: (message: string) => void;
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
 * The Pricing API answers in a few regions only; Karpenter asks the one nearest the cluster's partition
 * (pkg/providers/pricing NewAPI). China's prices are in CNY and GovCloud has no Pricing API at all.
 */
export function pricingApiRegion(region: string): string {
  if (region.startsWith('ap-')) return 'ap-south-1';
  if (region.startsWith('cn-')) return 'cn-northwest-1';
  if (region.startsWith('eu-')) return 'eu-central-1';
  return 'us-east-1';
}

/** The handler only warns (and errs); both become one structured warning. */
function handlerLogger(warn: (message: string) => void): { debug(): void; info(): void; warn(message: unknown): void; error(message: unknown): void } {
  const say = (message: unknown): void => { warn(String(message)); };
  return { debug: () => undefined, info: () => undefined, warn: say, error: say };
}

/**
 * The SDK's own retries are turned off (maxAttempts 1): throttling is retried by our
 * retryThrottled with an injected clock, so backoff is visible to tests and to metrics.
 */
export function createAwsClients(options: AwsClientOptions): AwsClients {
  const warn = options.warn;
  const config = {
    region: options.region,
    maxAttempts: 1,
    ...(warn === undefined ? {} : { requestHandler: { logger: handlerLogger(warn) } }),
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
