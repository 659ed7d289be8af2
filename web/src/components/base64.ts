// Bytes as base64 text, the form the API takes a file or a payload in (a chaincode archive, a
// channel block, data to sign): in chunks, since String.fromCharCode takes only so many arguments.
export function bytesBase64(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** A file picked in the page, as base64. */
export async function fileBase64(file: File): Promise<string> {
  return bytesBase64(new Uint8Array(await file.arrayBuffer()));
}
