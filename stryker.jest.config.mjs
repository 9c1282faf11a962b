/** The unit tests only, as one project: what Stryker runs against each mutant. */
import { unit } from './jest.config.js';

export default unit;
