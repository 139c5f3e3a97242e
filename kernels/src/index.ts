export * from './cache.js';
export * from './data.js';
export * from './fetch.js';
export * from './inventory.js';
export * from './manifest.js';
export * from './run.js';
export * from './stackRegistry.js';
export * from './stackSource.js';
