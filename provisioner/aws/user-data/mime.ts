/**
 * The MIME multi-part archives cloud-init and nodeadm read (RFC 2046 `multipart/mixed`), in the
 * shape Karpenter writes them: boundary `//`, LF line ends, each part's headers then its content.
 */

export interface MimePart {
  /** Header name → value, names in canonical case (`Content-Type`). */
  readonly headers: Readonly<Record<string, string>>;
  readonly content: string;
}

export const boundary = '//';
export const shellScriptType = 'text/x-shellscript; charset="us-ascii"';
export const nodeConfigType = 'application/node.eks.aws';

/** True when the text is itself a MIME document (it starts with a MIME header). */
export function isMime(text: string): boolean {
  const start = text.trimStart();
  return start.startsWith('MIME-Version:') || start.startsWith('Content-Type:');
}

/** Splits a multi-part document into its parts; throws when it is not one. */
export function parseMime(text: string): MimePart[] {
  const doc = text.replace(/\r\n/g, '\n').trimStart();
  const { headers, body } = splitHeaders(doc);
  const delimiter = boundaryOf(headers['Content-Type'] ?? '');
  const parts: MimePart[] = [];
  const lines = body.split('\n');
  let current: string[] | undefined;
  for (const line of lines) {
    const trimmed = line.trimEnd();
    if (trimmed === `--${delimiter}` || trimmed === `--${delimiter}--`) {
      if (current !== undefined) parts.push(toPart(current.join('\n')));
      if (trimmed === `--${delimiter}--`) return parts;
      current = [];
    } else if (current !== undefined) {
      current.push(line);
    }
  }
  // A last `--//` with nothing after it ends the document too: Go's multipart reader, which Karpenter reads user
  // data with, finds no next part there and stops, and Karpenter's own examples/v1 al2023-custom-userdata ends so.
  // Content after the last delimiter with no closing one is still refused: that part may have been cut short.
  if (current?.every((line) => line.trim() === '') === true) return parts;
  throw new Error(`user data MIME document has no closing --${delimiter}--`);
}

function boundaryOf(type: string): string {
  if (!/^multipart\//i.test(type)) throw new Error('user data is not a multipart MIME document');
  const marker = /;\s*boundary=(?:"([^"]*)"|([^;\s]+))/i.exec(type);
  const delimiter = marker?.[1] ?? marker?.[2];
  if (delimiter === undefined || delimiter === '') throw new Error('user data names no MIME boundary');
  return delimiter;
}

function toPart(raw: string): MimePart {
  const { headers, body } = splitHeaders(raw);
  return { headers, content: body };
}

function splitHeaders(raw: string): { headers: Record<string, string>; body: string } {
  const end = raw.indexOf('\n\n');
  const head = end < 0 ? raw : raw.slice(0, end);
  const body = end < 0 ? '' : raw.slice(end + 2);
  const headers: Record<string, string> = {};
  let last: string | undefined;
  for (const line of head.split('\n')) {
    if (/^[ \t]/.test(line) && last !== undefined) {
      // A folded header continues the previous one (RFC 5322 §2.2.3).
      headers[last] = `${headers[last] ?? ''} ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    last = canonicalHeader(line.slice(0, colon).trim());
    headers[last] = line.slice(colon + 1).trim();
  }
  return { headers, body };
}

function canonicalHeader(name: string): string {
  return name
    .toLowerCase()
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('-');
}

/** The archive as text: parts in order, each with its headers sorted by name (as Go writes them). */
export function serializeMime(parts: readonly MimePart[]): string {
  const rendered = parts.map((p) => {
    const headers = Object.keys(p.headers)
      .sort()
      .map((k) => `${k}: ${p.headers[k] ?? ''}\n`)
      .join('');
    return `--${boundary}\n${headers}\n${p.content}`;
  });
  return [
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    `${rendered.join('\n')}\n--${boundary}--\n`,
  ].join('\n');
}

export function part(contentType: string, content: string): MimePart {
  return { headers: { 'Content-Type': contentType }, content };
}
