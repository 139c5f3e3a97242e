export * from './plan/index.js';
export * from './sampling/qdiscStat.js';
export * from './sampling/tcpSampler.js';
export * from './spec/index.js';
