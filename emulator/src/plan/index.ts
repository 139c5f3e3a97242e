export * from './build.js';
export * from './changes.js';
export * from './dumbbell.js';
export * from './format.js';
export * from './sizing.js';
export * from './stages.js';
export * from './traffic.js';
export * from './types.js';
