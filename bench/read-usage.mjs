/**
 * The floor of any report: a process that opens the tracker database read-only and decodes every
 * usage record (session x agent x model) once, doing nothing with them. Prints how many it read.
 * Not a benchmark itself (the runner only picks up `*.bench.mjs`).
 */
import { dist } from './support.mjs';

const { Store } = await dist('core/store/store.js');
const store = Store.open({ path: process.argv[2], maxDatabaseSize: 2 ** 31, readOnly: true });
let records = 0;
for (const { value } of store.tables.usage.getRange()) if (value) records += 1;
store.close();
console.log(JSON.stringify({ records }));
