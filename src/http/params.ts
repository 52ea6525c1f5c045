// Schemas of path and query parameters shared by every resource.
import { idSchema } from '../core/id-schema.ts';

/** An agent, chain, task, account or provider id in a path, query or body. */
export const idParam = idSchema;
