import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { renderedFolders, renderManifests } from './render-manifests.js';

void t.test('manifests/ is what the chart renders (run `npm run manifests` when this fails)', async (t) => {
  const rendered = await renderManifests();
  for (const [path, text] of rendered) {
    t.equal(await readFile(join('manifests', path), 'utf8').catch(() => '<missing>'), text, `manifests/${path} is up to date`);
  }
  for (const folder of renderedFolders) {
    for (const file of await readdir(join('manifests', folder))) {
      t.ok(rendered.has(`${folder}/${file}`), `manifests/${folder}/${file} comes from the chart (a hand-kept copy would drift)`);
    }
  }
});
