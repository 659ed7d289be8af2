// Log lines with ANSI colours drawn as styled spans (parsing in ansi.ts), search matches marked.
import type { ReactNode } from 'react';
import { parseAnsi } from './ansi';

export function AnsiLine({ line, highlight }: { line: string; highlight?: string }): ReactNode {
  return parseAnsi(line).map((s, i) => {
    const cls = [s.fg !== null ? `ansi-fg${s.fg}` : '', s.bg !== null ? `ansi-bg${s.bg}` : '', s.bold ? 'ansi-bold' : ''].filter(Boolean).join(' ');
    return (
      <span key={i} className={cls || undefined}>
        {highlight ? mark(s.text, highlight) : s.text}
      </span>
    );
  });
}

function mark(text: string, needle: string): ReactNode {
  const lower = text.toLowerCase();
  const n = needle.toLowerCase();
  const parts: ReactNode[] = [];
  let from = 0;
  for (let at = lower.indexOf(n); at >= 0; at = lower.indexOf(n, from)) {
    parts.push(text.slice(from, at), <mark key={at}>{text.slice(at, at + n.length)}</mark>);
    from = at + n.length;
  }
  parts.push(text.slice(from));
  return parts;
}
