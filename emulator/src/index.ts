export * from './plan/index.js';
export * from './spec/index.js';
