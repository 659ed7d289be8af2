import type { ReactNode } from 'react';
import { Empty } from './states';

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
}

/**
 * A plain table with a caption for screen readers; rows keyed by `rowKey`. With `empty`, no rows
 * show that text (the page's empty state) instead of a header-only table; without it, the
 * table is drawn whatever the rows (pages that check for emptiness themselves keep working).
 */
export function DataTable<T>({ rows, columns, caption, rowKey, empty, testId, rowAttrs }: { rows: T[]; columns: Array<Column<T>>; caption: string; rowKey: (row: T) => string | number; empty?: ReactNode; testId?: string; rowAttrs?: (row: T) => Record<`data-${string}`, string> }) {
  if (empty !== undefined && rows.length === 0) return <Empty>{empty}</Empty>;
  return (
    <table data-testid={testId}>
      <caption className="sr-only">{caption}</caption>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c.header} scope="col">
              {c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={rowKey(r)} {...rowAttrs?.(r)}>
            {columns.map((c) => (
              <td key={c.header}>{c.cell(r)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}
