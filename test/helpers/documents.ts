// Reading generated documents back the way a person's tools would: a strict CSV reader and
// PDF.js text extraction.
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** A strict RFC 4180 reader: fails on anything a conforming writer would not produce. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < text.length) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += text[i++];
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
        if (text[i] === '"') throw new Error(`bare quote at ${i}`);
        field += text[i++];
      }
    }
    row.push(field);
    if (text[i] === ',') {
      i++;
    } else if (text.startsWith('\r\n', i)) {
      rows.push(row);
      row = [];
      i += 2;
    } else {
      throw new Error(`expected , or CRLF at ${i}, found ${JSON.stringify(text[i])}`);
    }
  }
  if (row.length) throw new Error('last record lacks CRLF');
  return rows;
}

export async function readPdf(pdf: Buffer): Promise<{ pages: string[]; title: string }> {
  const doc = await getDocument({ data: new Uint8Array(pdf), verbosity: 0 }).promise;
  try {
    const pages: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const content = await (await doc.getPage(n)).getTextContent();
      // one line per text run; PDF.js also reports the gaps between runs as blank items
      pages.push(content.items.map((i) => ('str' in i ? i.str : '')).filter((t) => t.trim() !== '').join('\n'));
    }
    const meta = await doc.getMetadata();
    return { pages, title: String((meta.info as Record<string, unknown>).Title ?? '') };
  } finally {
    await doc.destroy();
  }
}
