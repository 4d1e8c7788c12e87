import { parseAllDocuments } from 'yaml';
import { maxNestingDepth, nestingDepth } from '../domain/api/nesting-depth.js';

/**
 * The API server refuses a request body over 3 MiB, so no Kubernetes object is larger; a bigger document
 * is refused before the parser sees it (parsing a huge one costs seconds and gigabytes).
 */
export const maxDocumentBytes = 3 * 1024 * 1024;
/** YAML aliases may not expand a document beyond this many alias nodes (the "billion laughs" guard). */
export const maxAliasCount = 100;

/** One parsed YAML/JSON document: where it starts (1-based document index and line) and its value. */
export interface ManifestDocument {
  readonly index: number;
  readonly line: number;
  readonly value: unknown;
}

/** A document that cannot be read, said in words: which document, which line, what is wrong. */
export interface DocumentProblem {
  readonly index: number;
  readonly line: number;
  readonly message: string;
}

export interface ParsedText {
  readonly documents: ManifestDocument[];
  readonly problems: DocumentProblem[];
}

/** Where each document starts (offset and line), from the `---` separator lines; no parsing. */
function documentStarts(text: string): { offset: number; line: number }[] {
  const starts = [{ offset: 0, line: 1 }];
  const separator = /^---(?=[ \t\r]|$)/gm;
  const lineOf = lineCounter(text);
  for (let m = separator.exec(text); m !== null; m = separator.exec(text)) {
    if (m.index > 0) starts.push({ offset: m.index, line: lineOf(m.index) });
  }
  return starts;
}

/** The first document over the size limit, if any, as a problem. */
export function oversizedDocument(text: string): DocumentProblem | undefined {
  if (Buffer.byteLength(text) <= maxDocumentBytes) return undefined;
  const starts = documentStarts(text);
  for (const [i, start] of starts.entries()) {
    const end = starts[i + 1]?.offset ?? text.length;
    const bytes = Buffer.byteLength(text.slice(start.offset, end));
    if (bytes > maxDocumentBytes) {
      const mib = (bytes / 1024 / 1024).toFixed(1);
      return { index: i + 1, line: start.line, message: `is ${mib} MiB, over the 3 MiB limit of a Kubernetes object (the API server's request limit); not read` };
    }
  }
  return undefined;
}

/** Offset → 1-based line, by binary search over the newline offsets. */
function lineCounter(text: string): (offset: number) => number {
  const newlines: number[] = [];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) newlines.push(i);
  return (offset) => {
    let low = 0;
    let high = newlines.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((newlines[mid] ?? Infinity) < offset) low = mid + 1;
      else high = mid;
    }
    return low + 1;
  };
}

/** The parser's message in words: its first line, with the JavaScript stack overflow named for what it is. */
function parserMessage(message: string): string {
  const first = message.split('\n')[0] ?? message;
  if (first.includes('Maximum call stack size exceeded')) return `nested too deeply to read (more than the parser can follow; a Kubernetes object nests far less)`;
  if (first.includes('Excessive alias count')) return `too many YAML aliases (over ${String(maxAliasCount)}): refused as a resource-exhaustion attack`;
  return first.replace(/ at line \d+, column \d+:?$/, '');
}

/**
 * Parses every document of a YAML or JSON text within the limits above. Never throws for bad input: each
 * document that cannot be read becomes a problem naming the document and line.
 */
export function parseManifestText(text: string): ParsedText {
  const oversized = oversizedDocument(text);
  if (oversized !== undefined) return { documents: [], problems: [oversized] };
  const documents: ManifestDocument[] = [];
  const problems: DocumentProblem[] = [];
  const lineOf = lineCounter(text);
  const parsed = parseAllDocuments(text, { prettyErrors: true });
  (Array.isArray(parsed) ? parsed : [parsed]).forEach((doc, i) => {
    const index = i + 1;
    const start = lineOf(doc.range[0]);
    const [error] = doc.errors;
    if (error !== undefined) {
      problems.push({ index, line: error.linePos?.[0].line ?? start, message: parserMessage(error.message) });
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount });
    } catch (e) {
      problems.push({ index, line: start, message: parserMessage(e instanceof Error ? e.message : String(e)) });
      return;
    }
    if (nestingDepth(value) > maxNestingDepth) {
      problems.push({ index, line: start, message: `nests more than ${String(maxNestingDepth)} levels deep; a Kubernetes object nests far less` });
      return;
    }
    documents.push({ index, line: start, value });
  });
  return { documents, problems };
}
