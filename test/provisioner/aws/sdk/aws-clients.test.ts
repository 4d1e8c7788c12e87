import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createAwsClients, pricingApiRegion } from '../../../../provisioner/aws/sdk/aws-clients.js';
import { DescribeInstancesCommand } from '../../../../provisioner/aws/sdk/sdk.js';

const emptyAnswer = '<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r</requestId><reservationSet/></DescribeInstancesResponse>';

void t.test("the SDK's warning that every socket is busy reaches the given warn, not the console", async (t) => {
  // An endpoint as slow as a saturated moto: it holds every request until the test lets go, past the handler's
  // check 3 s after a request starts.
  const held: (() => void)[] = [];
  let holding = true;
  const server = createServer((_req, res) => {
    const answer = (): void => { res.writeHead(200, { 'content-type': 'text/xml' }).end(emptyAnswer); };
    if (holding) held.push(answer);
    else answer();
  });
  const letGo = (): void => { holding = false; for (const answer of held.splice(0)) answer(); };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => { server.closeAllConnections(); server.close(); });
  const warnings: string[] = [];
  const printed: unknown[] = [];
  const consoleWarn = console.warn;
  console.warn = (...args: unknown[]): void => { printed.push(args); };
  t.teardown(() => { console.warn = consoleWarn; });
  const clients = createAwsClients({
    region: 'us-east-1', endpoint: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    credentials: { accessKeyId: 'a', secretAccessKey: 's' }, warn: (m) => warnings.push(m),
  });
  t.teardown(() => { clients.destroy(); });
  // 50 sockets (the SDK's default) busy and at least twice as many requests queued behind them.
  const sent = Promise.all(Array.from({ length: 160 }, () => clients.ec2.send(new DescribeInstancesCommand({}))));
  for (let waited = 0; warnings.length + printed.length === 0 && waited < 6_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  letGo();
  await sent;
  t.match(warnings, [/socket usage at capacity=50 and \d+ additional requests are enqueued/]);
  t.same(printed, [], 'nothing printed as plain text');
});

void t.test('the Pricing API client asks the nearest region that has the Pricing API', (t) => {
  t.equal(pricingApiRegion('us-west-2'), 'us-east-1');
  t.equal(pricingApiRegion('ap-northeast-1'), 'ap-south-1');
  t.equal(pricingApiRegion('eu-west-3'), 'eu-central-1');
  t.equal(pricingApiRegion('cn-north-1'), 'cn-northwest-1');
  t.end();
});
