// A YAML code editor (CodeMirror 6 with its YAML language): highlighting, line numbers, bracket
// matching, undo, and the document's syntax errors underlined in the text, marked in the gutter and
// listed under the editor in words. Loaded on demand (its own chunk): the pages that use it import
// it through React.lazy. Keyboard: Tab leaves the editor (no focus trap); Ctrl-Z / Ctrl-Y undo and
// redo; F8 moves to the next error.
import { useEffect, useRef, useState } from 'react';
import { EditorState } from '@codemirror/state';
import { EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { yaml as yamlLanguage } from '@codemirror/lang-yaml';
import { linter, lintGutter, lintKeymap, type Diagnostic } from '@codemirror/lint';
import { parseDocument } from 'yaml';

export interface YamlProblem {
  line: number;
  column: number;
  message: string;
  from: number;
  to: number;
}

/** The YAML syntax errors of a text, with their line and column (1-based). */
export function yamlProblems(text: string): YamlProblem[] {
  const doc = parseDocument(text, { prettyErrors: false });
  return doc.errors.map((e) => {
    const [from, to] = e.pos;
    const before = text.slice(0, from);
    const line = before.split('\n').length;
    const column = from - before.lastIndexOf('\n');
    return { line, column, message: e.message.split('\n')[0], from, to: Math.max(to, from) };
  });
}

export default function YamlEditor({ value, onChange, label, id }: { value: string; onChange: (v: string) => void; label: string; id?: string }) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;
  const [problems, setProblems] = useState<YamlProblem[]>(() => yamlProblems(value));

  useEffect(() => {
    const lint = linter(
      (v): Diagnostic[] => {
        const text = v.state.doc.toString();
        return yamlProblems(text).map((p) => ({ from: Math.min(p.from, text.length), to: Math.min(Math.max(p.to, p.from + 1), text.length), severity: 'error', message: p.message }));
      },
      { delay: 300 },
    );
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          highlightActiveLine(),
          drawSelection(),
          history(),
          indentOnInput(),
          bracketMatching(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          yamlLanguage(),
          lint,
          lintGutter(),
          keymap.of([...defaultKeymap, ...historyKeymap, ...lintKeymap]),
          EditorState.tabSize.of(2),
          EditorView.contentAttributes.of({ 'aria-label': label, ...(id ? { id } : {}), spellcheck: 'false' }),
          EditorView.updateListener.of((u) => {
            if (!u.docChanged) return;
            const text = u.state.doc.toString();
            changed.current(text);
            setProblems(yamlProblems(text));
          }),
        ],
      }),
    });
    view.current = v;
    return () => {
      v.destroy();
      view.current = null;
    };
    // The editor owns its text once made; a new value from outside replaces it below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [label, id]);

  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  return (
    <div className="yaml-editor">
      <div ref={host} className="code-editor" data-testid="yaml-editor" />
      <div aria-live="polite">
        {problems.length === 0 ? (
          <p className="muted yaml-ok">The YAML is well formed.</p>
        ) : (
          <ul className="yaml-problems" aria-label="YAML syntax errors">
            {problems.map((p, i) => (
              <li key={i}>
                Line {p.line}, column {p.column}: {p.message}
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
