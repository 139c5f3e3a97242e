export * from './plan/index.js';
export * from './sampling/flowmeter.js';
export * from './sampling/pktTiming.js';
export * from './sampling/qdiscStat.js';
export * from './sampling/tcpSampler.js';
export * from './spec/index.js';
export * from './traffic/udp.js';
export * from './transports/index.js';
