/** The named sub-databases of the central store, as values (mutations.ts has them as a type). */
import type { TableName } from './mutations.js';

export const TABLE_NAMES: readonly TableName[] = [
  'agents',
  'sessions',
  'commits',
  'communication',
  'retrospectives',
  'activities',
  'projects',
  'migrations',
  'userGrades',
  'events',
  'terms',
  'meta',
];
