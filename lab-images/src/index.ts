export * from './agent.js';
export * from './build.js';
export * from './channel.js';
export * from './lab.js';
export * from './ldd.js';
export * from './modules.js';
export * from './qemu.js';
export * from './samplers.js';
