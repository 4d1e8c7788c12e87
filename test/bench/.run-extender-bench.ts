import { runExtenderBench } from '/work/main/test/bench/extender-bench.js';
await runExtenderBench();
