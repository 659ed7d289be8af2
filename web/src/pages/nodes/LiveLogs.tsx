// A node's output live over GET /api/v1/nodes/{id}/logs (WebSocket, one message per line, the
// last 200 lines first), or another followed source (`src`: a plugin service's
// GET /api/v1/plugins/{name}/logs?service=): follow (keep the newest line in view), pause (hold
// new lines back), search (show matching lines only), ANSI colours. A node that never ran (the
// server closes with code 4409) is said as such, with its last error, not as a lost connection;
// the follow is opened again when the node's status changes (`status`).
import { useEffect, useRef, useState } from 'react';
import { AnsiLine } from '../../components/ansiLine';

const MAX_LINES = 5_000;
type Conn = 'connecting' | 'open' | 'closed' | 'never-ran';
/** The server's close code for a node with no output because it never ran (http/nodeLogs.ts). */
const NEVER_RAN = 4409;

export function LiveLogs({ nodeId, src, label = 'Node log', status, lastError }: { nodeId?: number; src?: string; label?: string; status?: string; lastError?: string | null }) {
  const path = src ?? `/api/v1/nodes/${nodeId}/logs?tail=200`;
  const [lines, setLines] = useState<string[]>([]);
  const [conn, setConn] = useState<Conn>('connecting');
  const [closeReason, setCloseReason] = useState('');
  const [paused, setPaused] = useState(false);
  const [follow, setFollow] = useState(true);
  const [search, setSearch] = useState('');
  const [attempt, setAttempt] = useState(0);
  const held = useRef<string[]>([]);
  const pausedRef = useRef(paused);
  const box = useRef<HTMLPreElement>(null);
  pausedRef.current = paused;

  useEffect(() => {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${proto}//${location.host}${path}`);
    setConn('connecting');
    // The server sends the last 200 lines first: start from them, not twice after a reconnect.
    setLines([]);
    held.current = [];
    let pending: string[] = [];
    let timer: number | null = null;
    const flush = () => {
      timer = null;
      const batch = pending;
      pending = [];
      if (pausedRef.current) held.current.push(...batch);
      else setLines((prev) => [...prev, ...batch].slice(-MAX_LINES));
    };
    ws.onopen = () => setConn('open');
    ws.onmessage = (m) => {
      pending.push(String(m.data));
      timer ??= window.setTimeout(flush, 100);
    };
    ws.onclose = (e) => {
      setConn(e.code === NEVER_RAN ? 'never-ran' : 'closed');
      setCloseReason(e.reason || (e.code === 1006 ? 'the connection was refused or lost' : `code ${e.code}`));
    };
    return () => {
      if (timer) clearTimeout(timer);
      ws.close();
    };
  }, [path, attempt, status]);

  useEffect(() => {
    if (!paused && held.current.length) {
      const more = held.current;
      held.current = [];
      setLines((prev) => [...prev, ...more].slice(-MAX_LINES));
    }
  }, [paused]);

  useEffect(() => {
    if (follow && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [lines, follow, search]);

  const shown = search ? lines.filter((l) => l.toLowerCase().includes(search.toLowerCase())) : lines;
  return (
    <div className="logs">
      <div className="logs-bar">
        <span className={`conn conn-${conn}`} role="status" aria-live="polite">
          {conn === 'open' ? 'Live' : conn === 'connecting' ? 'Connecting…' : conn === 'never-ran' ? 'No output: this node has never run' : `Disconnected: ${closeReason}`}
        </span>
        {conn === 'closed' || conn === 'never-ran' ? (
          <button type="button" onClick={() => setAttempt((a) => a + 1)}>
            {conn === 'closed' ? 'Reconnect' : 'Check again'}
          </button>
        ) : null}
        <button type="button" aria-pressed={paused} onClick={() => setPaused((p) => !p)}>
          {paused ? `Resume${held.current.length ? ` (${held.current.length} new)` : ''}` : 'Pause'}
        </button>
        <label className="inline">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> Follow
        </label>
        <label className="inline">
          Search
          <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="text in a line" />
        </label>
        <button type="button" onClick={() => setLines([])}>
          Clear
        </button>
        <span className="muted">
          {search ? `${shown.length} of ${lines.length} lines` : `${lines.length} lines`}
        </span>
      </div>
      {conn === 'never-ran' ? (
        <p className="hint" data-testid="log-never-ran">
          {lastError ? <>Why: <span className="error-text">{lastError}</span></> : closeReason}
        </p>
      ) : null}
      <pre className="log-view" ref={box} tabIndex={0} aria-label={label} data-testid="log-view">
        {shown.length === 0 ? <span className="muted">{lines.length ? 'No line matches the search.' : 'No output yet.'}</span> : null}
        {shown.map((l, i) => (
          <div key={i}>
            <AnsiLine line={l} highlight={search || undefined} />
          </div>
        ))}
      </pre>
    </div>
  );
}
