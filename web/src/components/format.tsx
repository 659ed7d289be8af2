export function StatusBadge({ status }: { status: string | null | undefined }) {
  const s = (status ?? 'unknown').toLowerCase();
  const label = s === 'running' ? 'Running' : s === 'stopped' ? 'Stopped' : s.charAt(0).toUpperCase() + s.slice(1).replace(/_/g, ' ');
  return <span className={`badge status-${s.replace(/[^a-z]/g, '')}`}>{label}</span>;
}

export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="muted">—</span>;
  const d = new Date(at);
  return <time dateTime={at} title={d.toISOString()}>{d.toLocaleString()}</time>;
}

export function Pager({ total, limit, offset, onOffset }: { total: number; limit: number; offset: number; onOffset: (o: number) => void }) {
  if (total <= limit && offset === 0) return <p className="muted pager-info">{total} in all</p>;
  const page = Math.floor(offset / limit) + 1;
  const pages = Math.max(1, Math.ceil(total / limit));
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
        Previous
      </button>
      <span>
        Page {page} of {pages} ({total} in all)
      </span>
      <button type="button" disabled={offset + limit >= total} onClick={() => onOffset(offset + limit)}>
        Next
      </button>
    </nav>
  );
}
