/** The domain records live in the contract layer; core modules import them from here as before. */
export * from '../contract/records.js';
