/** Saving text the panel made (a log export, a recorded session) as a file the browser downloads. */

/** Now, as a file name part: 2026-11-24T15-42-07-100Z. */
export function fileTime(date = new Date()): string {
  return date.toISOString().replace(/[:.]/g, '-');
}

export function downloadJsonlFile(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  // The download reads the blob after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
