import { sleepUnlessAborted, type Clock } from '../domain/clock.js';
import type { Terminal } from './terminal.js';
import { sortKeys, type RenderOptions, type SortKey } from './top-render.js';

/** What the keys change between frames. */
export interface ScreenState {
  sort: SortKey;
  nodePool: string | undefined;
  scroll: number;
}

const enter = '\u001b[?1049h\u001b[?25l';
const leave = '\u001b[?25h\u001b[?1049l';

/**
 * Applies one key press to the screen state; returns false for quit. Keys: q or Ctrl-C quit, s cycles the sort,
 * p cycles the NodePool filter (all, then each pool), ↑/↓ (or k/j) scroll, PgUp/PgDn scroll a page.
 */
export function applyKey(key: string, state: ScreenState, pools: readonly string[], page: number): boolean {
  if (key === 'q' || key === '\u0003') return false;
  const scrollBy = scrolling[key];
  if (scrollBy !== undefined) state.scroll = Math.max(0, state.scroll + (scrollBy === 'page' ? page : scrollBy === '-page' ? -page : scrollBy));
  if (key === 's') state.sort = sortKeys[(sortKeys.indexOf(state.sort) + 1) % sortKeys.length] ?? 'cost';
  if (key === 'p') state.nodePool = pools[state.nodePool === undefined ? 0 : pools.indexOf(state.nodePool) + 1];
  if (key === 's' || key === 'p') state.scroll = 0;
  return true;
}

/** Rows each scrolling key moves, or a page (PgDn, PgUp). */
const scrolling: Readonly<Record<string, number | 'page' | '-page'>> = { j: 1, '\u001b[B': 1, k: -1, '\u001b[A': -1, '\u001b[6~': 'page', '\u001b[5~': '-page' };

export interface ScreenOptions {
  readonly terminal: Terminal;
  readonly clock: Clock;
  /** Renders a frame for these options (builds the view from the model at call time). */
  readonly frame: (options: RenderOptions) => string[];
  readonly pools: () => readonly string[];
  /** Subscribes to model changes; returns the unsubscribe. */
  readonly onChange: (listener: () => void) => () => void;
  readonly initial: ScreenState;
  /** Redraw at least this often (ages, the clock). */
  readonly intervalMs: number;
  /** Resolves when the process is asked to stop. */
  readonly interrupted: Promise<void>;
}

/**
 * The full-screen loop: alternate screen, a redraw at most every 100 ms on model changes (a burst of a thousand
 * pod updates is one frame) and at least every `intervalMs`, keys applied at once. Resolves when the user quits.
 */
export async function runScreen(o: ScreenOptions): Promise<void> {
  const { terminal, clock } = o;
  const state = { ...o.initial };
  let pending = false;
  const draw = (): void => {
    pending = false;
    const lines = o.frame({ width: terminal.columns(), height: terminal.rows(), sort: state.sort, ...(state.nodePool === undefined ? {} : { nodePool: state.nodePool }), scroll: state.scroll, interactive: true, nowMs: clock.now() });
    terminal.write(`\u001b[H${lines.join('\u001b[K\n')}\u001b[K\u001b[J`);
  };
  const soon = (): void => {
    if (pending) return;
    pending = true;
    void clock.sleep(100).then(draw);
  };
  const quitting = new AbortController();
  const quit = (): void => { quitting.abort(); };
  const quitted = new Promise<void>((resolve) => { quitting.signal.addEventListener('abort', () => { resolve(); }, { once: true }); });
  terminal.write(enter);
  const stops = [
    o.onChange(soon),
    terminal.onResize(draw),
    terminal.onKeys((key) => { if (applyKey(key, state, o.pools(), Math.max(1, terminal.rows() - 10))) draw(); else quit(); }),
  ];
  const loop = { running: true };
  const ticker = (async (): Promise<void> => {
    while (loop.running) {
      draw();
      await sleepUnlessAborted(clock, o.intervalMs, quitting.signal);
    }
  })();
  await Promise.race([quitted, o.interrupted]);
  loop.running = false;
  quit();
  await ticker;
  for (const stop of stops) stop();
  terminal.write(leave);
}
