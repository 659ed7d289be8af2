// Docker's log stream without a TTY multiplexes stdout and stderr in frames:
// [stream type (1 byte), 0, 0, 0, payload length (4 bytes, big endian)] then the payload.
import { Writable } from 'node:stream';

/** The payloads of a complete multiplexed log buffer, in order (stdout and stderr interleaved). */
export function demuxLogBuffer(buf: Buffer): string {
  const parts: Buffer[] = [];
  let at = 0;
  while (at + 8 <= buf.length) {
    const type = buf[at];
    if (type > 2 || buf[at + 1] !== 0 || buf[at + 2] !== 0 || buf[at + 3] !== 0) {
      // Not multiplexed (a TTY container): the rest is raw output.
      parts.push(buf.subarray(at));
      return Buffer.concat(parts).toString('utf8');
    }
    const len = buf.readUInt32BE(at + 4);
    parts.push(buf.subarray(at + 8, at + 8 + len));
    at += 8 + len;
  }
  return Buffer.concat(parts).toString('utf8');
}

export function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/** A writable that calls onLine per complete line (one per stream, so halves never mix). */
export function lineSink(onLine: (line: string) => void): Writable {
  let partial = '';
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) onLine(l.endsWith('\r') ? l.slice(0, -1) : l);
      done();
    },
    final(done) {
      if (partial) onLine(partial);
      done();
    },
  });
}
