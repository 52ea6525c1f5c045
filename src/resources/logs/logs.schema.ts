// Shapes of the run logs resource.
import { z } from 'zod';
import { paginationQuery } from '../../http/pagination.ts';
import { idParam } from '../../http/params.ts';

export const chainFilter = z.object({ chainId: idParam.optional() });
export const runListQuery = paginationQuery.extend(chainFilter.shape);
export const runParams = z.object({ id: idParam });
export const clearAnswer = z.object({ deleted: z.int() });
