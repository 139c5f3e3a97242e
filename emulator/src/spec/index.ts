export * from './cross.js';
export * from './fields.js';
export * from './flow.js';
export * from './jsonSchema.js';
export * from './schema.js';
export * from './stacks.js';
export * from './units.js';
export * from './validate.js';
