/** Typed errors and the one mapper that renders them (STYLE.md convention 6). */
export * from './errors';
export * from './error-mapper';
