export * from './pricing';
export * from './params';
export * from './table';
export * from './match';
