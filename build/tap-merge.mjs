// Several tap runs as one TAP stream: each run's output is held until one of its files ends, then that file's whole
// block is written, numbered in the merged stream, so blocks of files that run at the same time never interleave.
// Each run's own header, plan and summary are left out; the merged stream prints its plan and summary at the end.

/** A file's result line at the top level: `ok 12 - test/x.test.ts # time=1234.5ms`, unindented. */
const fileLine = /^(not ok|ok) \d+ - (\S+)( # time=([\d.]+)ms)?(.*)$/;
/** What a run prints around its files: its header, plan, count summary, total time and coverage notes. */
const runFrame = /^(TAP version \d+|\d+\.\.\d+|# \{.*\}|# time=[\d.]+ms|# No coverage generated)$/;
/** tap's count summary: `# { total: 12, pass: 11, fail: 1, skip: 0 }`. */
const countLine = /^# \{(.*)\}$/;

export class TapMerge {
  #out;
  #number = 0;
  /** Every file's result, in the order they ended. */
  files = [];
  /** The runs' count summaries added up (total, pass, fail, skip, todo). */
  counts = {};

  /** @param {(text: string) => void} out */
  constructor(out) {
    this.#out = out;
    out('TAP version 14\n');
  }

  /** A reader for one run: `line` for every line of that run's stdout, `close` when it ends (nothing held is lost). */
  run() {
    let held = [];
    /** After a file's result: its YAML diagnostics (`  ---` to `  ...`) belong to it, not to the next file. */
    let diagnostics = 'none';
    const close = () => {
      if (held.length > 0) this.#out(`${held.join('\n')}\n`);
      held = [];
    };
    const line = (text) => {
      if (diagnostics === 'may follow' && text === '  ---') diagnostics = 'open';
      if (diagnostics === 'open') {
        this.#out(`${text}\n`);
        if (text === '  ...') diagnostics = 'none';
        return;
      }
      diagnostics = 'none';
      const counts = countLine.exec(text);
      if (counts !== null) this.#addCounts(counts[1]);
      if (runFrame.test(text)) return;
      const m = fileLine.exec(text);
      if (m === null) {
        held.push(text);
        return;
      }
      this.#number += 1;
      const ms = Number(m[4] ?? 0);
      this.files.push({ file: m[2], ms, ok: m[1] === 'ok' });
      this.#out(`${[...held, `${m[1]} ${String(this.#number)} - ${m[2]}${m[3] ?? ''}${m[5]}`].join('\n')}\n`);
      held = [];
      diagnostics = 'may follow';
    };
    return { line, close };
  }

  #addCounts(text) {
    for (const part of text.split(',')) {
      const [key, value] = part.split(':').map((s) => s.trim());
      if (key !== undefined && /^\d+$/.test(value ?? '')) this.counts[key] = (this.counts[key] ?? 0) + Number(value);
    }
  }

  /** The merged plan and summary, as one tap run ends its output. */
  end() {
    const counts = Object.entries(this.counts).map(([k, v]) => `${k}: ${String(v)}`).join(', ');
    this.#out(`1..${String(this.#number)}\n# { ${counts} }\n`);
  }
}
