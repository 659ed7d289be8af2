import type { Projection } from './projection.ts';

/** Every read model of the API, in the order they are applied. */
export const allProjections: Projection[] = [];
