// PEM armour: DER bytes in, text out, and the strict reverse (one block of the expected label).
//   toPem(label, der)          -> "-----BEGIN <label>-----\n...base64 64 per line...\n-----END <label>-----\n"
//   pemToDer(text, label)      -> Buffer, or null when there is no well-formed block with that label
const blockPattern = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([A-Za-z0-9+/=\r\n\t ]+?)-----END \1-----/g;

export function toPem(label: string, der: Buffer | ArrayBuffer | Uint8Array): string {
  const b64 = Buffer.from(der as Uint8Array).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** The first block with `label`; null if none (or its body is not base64). */
export function pemToDer(text: string, label: string): Buffer | null {
  for (const m of text.matchAll(blockPattern)) {
    if (m[1] !== label) continue;
    const body = m[2].replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body) || body.length % 4 !== 0) return null;
    return Buffer.from(body, 'base64');
  }
  return null;
}

/** Every block's label, in order (to say what a rejected input contained instead). */
export function pemLabels(text: string): string[] {
  return [...text.matchAll(blockPattern)].map((m) => m[1]);
}
