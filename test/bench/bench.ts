/** Options every benchmark module receives from test/bench/main.ts. */
export interface BenchOptions {
  readonly maxPods: number;
  readonly write: (text: string) => void;
  /** The value after `--name` on the command line, for a module's own options. */
  readonly flag: (name: string) => string | undefined;
}

/** A benchmark module: listed in main.ts, selected with --only <name>. */
export interface Bench {
  readonly name: string;
  run(options: BenchOptions): void | Promise<void>;
}
