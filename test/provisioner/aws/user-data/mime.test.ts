import t from 'tap';
import { parseMime } from '../../../../provisioner/aws/user-data/mime.js';

const head = 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="//"\n\n';
const nodeConfig = '--//\nContent-Type: application/node.eks.aws\n\nkind: NodeConfig\n\n';
const script = '--//\nContent-Type: text/x-shellscript; charset="us-ascii"\n\n#!/bin/bash\necho "Hello, AL2023!"\n';

void t.test('a document that ends with a last --// and no closing --//-- is read as Karpenter reads it', (t) => {
  // The shape of Karpenter's examples/v1 al2023-custom-userdata.
  const parts = parseMime(`${head}${nodeConfig}${script}--//\n`);
  t.same(parts.map((p) => p.headers['Content-Type']), ['application/node.eks.aws', 'text/x-shellscript; charset="us-ascii"']);
  t.equal(parts[1]?.content, '#!/bin/bash\necho "Hello, AL2023!"');
  t.same(parseMime(`${head}${nodeConfig}${script}--//`), parts, 'without a final line end too');
  t.end();
});

void t.test('a closed document reads to its closing delimiter', (t) => {
  t.same(parseMime(`${head}${nodeConfig}${script}--//--\n`).length, 2);
  t.end();
});

void t.test('a part cut short (content after the last delimiter, no closing one) is refused', (t) => {
  t.throws(() => parseMime(`${head}${nodeConfig}${script}`), /no closing --\/\/--/);
  t.throws(() => parseMime(`${head}${nodeConfig}--//\nContent-Type: text/x-shellscript\n\necho cut`), /no closing/);
  t.end();
});
