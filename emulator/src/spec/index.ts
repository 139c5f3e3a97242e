export * from './fields.js';
export * from './jsonSchema.js';
export * from './schema.js';
export * from './stacks.js';
export * from './units.js';
export * from './validate.js';
