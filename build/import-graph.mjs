// Prints the shape of provisioner/'s import graph: upward imports between its sub-folders and the knots
// (strongly connected components) of the folder graph, of aws/'s own folder graph and of the file graph. Type
// imports count: a type import still makes a newcomer open the other folder, and `import type` today is a value
// import tomorrow.
//
//   node build/import-graph.mjs            the work tree
//   node build/import-graph.mjs main~3     a commit, read through git (no checkout), for before/after figures
//
// Lint enforces the rules (eslint.config.mjs: import-x/no-restricted-paths, import-x/no-cycle); this script
// only measures, so issue 36's figures can be repeated on any commit.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';

const root = 'provisioner';
// Lower layers must not import higher ones. runtime/ is what every layer runs on (the controller loop, the logger
// type, metric shapes), state/ holds the reads shared by several rooms, ports/ declares what adapters implement (it
// may name state/'s types), kube/ and aws/ are the adapters; every other folder (and the root files, as one node)
// is a room.
// index.ts sits with state/: it holds only types built from domain/ (the contract the extender reads the model through).
const layers = { runtime: 0, state: 0, 'index.ts': 0, ports: 1, kube: 2, aws: 2 };
const roomLayer = 3;

const rev = process.argv[2];

function listFiles() {
  if (rev !== undefined) {
    return execFileSync('git', ['ls-tree', '-r', '--name-only', rev, root], { encoding: 'utf8' }).split('\n').filter((f) => f.endsWith('.ts'));
  }
  const walk = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
  return walk(root);
}

function readText(file) {
  return rev === undefined ? readFileSync(file, 'utf8') : execFileSync('git', ['show', `${rev}:${file}`], { encoding: 'utf8', maxBuffer: 1 << 26 });
}

// Static `import … from`, `export … from`, bare `import '…'` and dynamic `import('…')`; a regex is enough
// because the sources are formatted by prettier and lint bans require().
const specifierPattern = /(?:^|\n)\s*(?:import|export)\s(?:[^'";]*?\sfrom\s*)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(file, text) {
  const found = [];
  for (const m of text.matchAll(specifierPattern)) {
    const spec = m[1] ?? m[2];
    if (!spec.startsWith('.')) continue;
    const target = posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\.js$/, '.ts');
    if (target.startsWith(`${root}/`)) found.push(target);
  }
  return found;
}

// The issue counted the root files as one node; each root file apart shows which of them closes a circle.
const folderOf = (file) => {
  const parts = file.split('/');
  return parts.length > 2 ? parts[1] : '(root)';
};
const roomOf = (file) => file.split('/')[1];
const layerOf = (file) => layers[roomOf(file)] ?? roomLayer;

// Tarjan's algorithm; returns the components with more than one member (a self-loop is not a knot here).
function knots(nodes, edges) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) !== idx.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) out.push(component.sort());
  };
  for (const v of nodes) if (!idx.has(v)) visit(v);
  return out;
}

function folderGraph(files, fileEdges, nodeOf) {
  const edges = new Map();
  for (const [file, targets] of fileEdges) {
    for (const target of targets) {
      if (nodeOf(file) === nodeOf(target)) continue;
      if (!edges.has(nodeOf(file))) edges.set(nodeOf(file), new Set());
      edges.get(nodeOf(file)).add(nodeOf(target));
    }
  }
  const nodes = [...new Set(files.map(nodeOf))].sort();
  return { nodes, arrows: [...edges.values()].reduce((n, set) => n + set.size, 0), knots: knots(nodes, edges) };
}

const files = listFiles();
const known = new Set(files);
const fileEdges = new Map();
const upward = new Set();
let lines = 0;
for (const file of files) {
  const text = readText(file);
  lines += text.split('\n').length - 1;
  const targets = importsOf(file, text).filter((target) => known.has(target));
  fileEdges.set(file, new Set(targets));
  for (const target of targets) {
    if (layerOf(file) < layerOf(target)) upward.add(`${file} -> ${target}`);
  }
}

console.log(`${rev ?? 'work tree'}: ${files.length} files, ${lines} lines`);
console.log(`upward imports (runtime, state, index.ts < ports < kube, aws < rooms): ${upward.size}`);
for (const u of upward) console.log(`  ${u}`);
for (const [title, nodeOf] of [['root files as one node', folderOf], ['each root file apart', roomOf]]) {
  const graph = folderGraph(files, fileEdges, nodeOf);
  console.log(`folder graph, ${title}: ${graph.nodes.length} nodes, ${graph.arrows} arrows, ${graph.knots.length} knots`);
  for (const k of graph.knots) console.log(`  ${k.length}: ${k.join(' ')}`);
}
// aws/ by provider job (issue 36, item 3): its sub-folders, with its root files (the ports built from them) as one node.
const awsRoot = `${root}/aws/`;
const awsFiles = files.filter((f) => f.startsWith(awsRoot));
const awsEdges = new Map(awsFiles.map((f) => [f, new Set([...fileEdges.get(f)].filter((t) => t.startsWith(awsRoot)))]));
const aws = folderGraph(awsFiles, awsEdges, (file) => (file.split('/').length > 3 ? file.split('/')[2] : '(root)'));
console.log(`aws/ folder graph, root files as one node: ${aws.nodes.length} nodes, ${aws.arrows} arrows, ${aws.knots.length} knots`);
for (const k of aws.knots) console.log(`  ${k.length}: ${k.join(' ')}`);
const fileKnots = knots(files, fileEdges);
console.log(`file knots: ${fileKnots.length}`);
for (const k of fileKnots) console.log(`  ${k.length}: ${k.map((f) => f.slice(root.length + 1)).join(' ')}`);
