import { z } from 'zod';

export const MAX_PAGE_SIZE = 100;

export const paginationQuery = z.object({
  page: z.coerce.number().int().min(1, 'must be at least 1').default(1),
  size: z.coerce
    .number()
    .int()
    .min(1, 'must be at least 1')
    .max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`)
    .default(20),
});

export type Pagination = z.infer<typeof paginationQuery>;

export interface Page<T> {
  data: T[];
  total: number;
  page: number;
  size: number;
}

/** The envelope of every paginated list: exactly {data, total, page, size}. */
export function paginate<T>(items: readonly T[], { page, size }: Pagination): Page<T> {
  const start = (page - 1) * size;
  return { data: items.slice(start, start + size), total: items.length, page, size };
}

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), total: z.int(), page: z.int(), size: z.int() });
}
