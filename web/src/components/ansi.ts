// ANSI SGR colours (ESC[...m) in node logs parsed into runs of one style; every other escape dropped.

export interface Segment {
  text: string;
  fg: number | null;
  bg: number | null;
  bold: boolean;
}

const SGR = /\x1b\[([0-9;]*)m/g;
const OTHER = /\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|\x1b/g;

/** Splits one line into runs of equal style. Colours are 0-7 (normal) and 8-15 (bright). */
export function parseAnsi(line: string): Segment[] {
  const out: Segment[] = [];
  let fg: number | null = null;
  let bg: number | null = null;
  let bold = false;
  let last = 0;
  const push = (text: string) => {
    const clean = text.replace(OTHER, '');
    if (clean) out.push({ text: clean, fg, bg, bold });
  };
  for (const m of line.matchAll(SGR)) {
    push(line.slice(last, m.index));
    last = m.index! + m[0].length;
    const codes = m[1] === '' ? [0] : m[1].split(';').map(Number);
    for (let i = 0; i < codes.length; i++) {
      const c = codes[i];
      if (c === 0) [fg, bg, bold] = [null, null, false];
      else if (c === 1) bold = true;
      else if (c === 22) bold = false;
      else if (c >= 30 && c <= 37) fg = c - 30;
      else if (c >= 90 && c <= 97) fg = c - 90 + 8;
      else if (c === 39) fg = null;
      else if (c >= 40 && c <= 47) bg = c - 40;
      else if (c >= 100 && c <= 107) bg = c - 100 + 8;
      else if (c === 49) bg = null;
      else if ((c === 38 || c === 48) && codes[i + 1] === 5) {
        const v = codes[i + 2] ?? 0;
        if (v < 16) c === 38 ? (fg = v) : (bg = v);
        i += 2;
      } else if ((c === 38 || c === 48) && codes[i + 1] === 2) i += 4;
    }
  }
  push(line.slice(last));
  return out;
}
