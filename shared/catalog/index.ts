export * from './instruments';
export * from './inventory';
export * from './series-keys';
