// Tabs kept in the address (?tab=...), so a tab can be linked and survives a reload: a tablist
// of buttons (arrow keys, Home and End move between them) and the one panel shown.
import { useRef, type KeyboardEvent, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';

export interface Tab {
  id: string;
  label: string;
  render: () => ReactNode;
}

export function Tabs({ tabs, label }: { tabs: Tab[]; label: string }) {
  const [params, setParams] = useSearchParams();
  const refs = useRef<Record<string, HTMLButtonElement | null>>({});
  const current = tabs.find((t) => t.id === params.get('tab')) ?? tabs[0];
  if (!current) return null;
  const select = (id: string) => {
    const next = new URLSearchParams(params);
    next.set('tab', id);
    setParams(next, { replace: true });
    refs.current[id]?.focus();
  };
  const onKey = (e: KeyboardEvent) => {
    const i = tabs.indexOf(current);
    const to = e.key === 'ArrowRight' ? (i + 1) % tabs.length : e.key === 'ArrowLeft' ? (i - 1 + tabs.length) % tabs.length : e.key === 'Home' ? 0 : e.key === 'End' ? tabs.length - 1 : -1;
    if (to < 0) return;
    e.preventDefault();
    select(tabs[to]!.id);
  };
  return (
    <>
      <div role="tablist" aria-label={label} className="lx-tabs" onKeyDown={onKey}>
        {tabs.map((t) => (
          <button
            key={t.id}
            ref={(el) => {
              refs.current[t.id] = el;
            }}
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={t.id === current.id}
            aria-controls={`panel-${t.id}`}
            tabIndex={t.id === current.id ? 0 : -1}
            onClick={() => select(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${current.id}`} aria-labelledby={`tab-${current.id}`} className="lx-panel">
        {current.render()}
      </div>
    </>
  );
}
