import { Type, type TSchema } from '@sinclair/typebox';

// Every list takes limit and offset. The defaults and the maximum are documented in the
// OpenAPI description and the README; a limit above the maximum is a 400, not a silent cap.
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: `page size, default ${DEFAULT_PAGE_SIZE}, maximum ${MAX_PAGE_SIZE}` })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'items to skip' })),
};

export function Page<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
  });
}

export function page<T>(items: T[], total: number, limit: number, offset: number) {
  return { items, total, limit, offset };
}

/** The page a list request asks for: its limit (the configured default page size when not given) and offset (0). */
export function pageRequest(config: { defaultPageSize: number }, query: { limit?: number; offset?: number }): { limit: number; offset: number } {
  return { limit: query.limit ?? config.defaultPageSize, offset: query.offset ?? 0 };
}
