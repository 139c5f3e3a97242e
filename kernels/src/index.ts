export * from './cache.js';
export * from './fetch.js';
export * from './inventory.js';
export * from './manifest.js';
export * from './run.js';
