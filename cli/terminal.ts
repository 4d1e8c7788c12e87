/** The interactive terminal a command may draw on: its size, raw key presses and resizes. */
export interface Terminal {
  columns(): number;
  rows(): number;
  /** Puts the terminal in raw mode and delivers each key press; the returned function restores it. */
  onKeys(listener: (key: string) => void): () => void;
  onResize(listener: () => void): () => void;
  write(text: string): void;
}

interface TtyIn { isTTY?: boolean; setRawMode?(raw: boolean): unknown; resume(): unknown; pause(): unknown; setEncoding(e: 'utf8'): unknown; on(e: 'data', l: (d: string) => void): unknown; off(e: 'data', l: (d: string) => void): unknown }
interface TtyOut { isTTY?: boolean; columns?: number; rows?: number; write(text: string): unknown; on(e: 'resize', l: () => void): unknown; off(e: 'resize', l: () => void): unknown }

/** The process's terminal when both ends are one (main.ts passes process.stdin and process.stdout); else undefined. */
export function ttyTerminal(input: TtyIn, output: TtyOut): Terminal | undefined {
  if (output.isTTY !== true || input.isTTY !== true || input.setRawMode === undefined) return undefined;
  return {
    columns: () => output.columns ?? 80,
    rows: () => output.rows ?? 24,
    onKeys(listener) {
      input.setRawMode?.(true);
      input.setEncoding('utf8');
      input.on('data', listener);
      input.resume();
      return () => {
        input.off('data', listener);
        input.setRawMode?.(false);
        input.pause();
      };
    },
    onResize(listener) {
      output.on('resize', listener);
      return () => { output.off('resize', listener); };
    },
    write: (text) => { output.write(text); },
  };
}
