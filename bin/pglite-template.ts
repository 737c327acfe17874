/**
 * Part of `npm install` (postinstall): builds the migrated embedded-database template a fresh
 * data directory starts from (core/data/pglite-template.ts), so the first `npm start` skips
 * PGlite's initdb and the migrations.
 */
import { cachedTemplate, pgliteTemplate, templateFile } from '../core/data/pglite-template.js';

const began = Date.now();
if (cachedTemplate()) console.log('embedded database template is current');
else {
  await pgliteTemplate();
  console.log(`embedded database template built in ${((Date.now() - began) / 1000).toFixed(1)} s (${templateFile()})`);
}
