// Free labels (a node host's zone, rack, ...) as the user types them: "zone=b, rack=7".

export function labelsText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
}

/** "zone=b, rack=7" (commas or new lines) into {zone: 'b', rack: '7'}; a part without "=" is an error. */
export function parseLabels(text: string): { labels: Record<string, string>; error: string | null } {
  const labels: Record<string, string> = {};
  for (const part of text.split(/[,\n]/).map((p) => p.trim()).filter(Boolean)) {
    const i = part.indexOf('=');
    if (i <= 0) return { labels, error: `"${part}" is not key=value` };
    labels[part.slice(0, i).trim()] = part.slice(i + 1).trim();
  }
  return { labels, error: null };
}
