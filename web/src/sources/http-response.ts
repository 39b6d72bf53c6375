// What the HTTP sources read off a response the same way everywhere: its status for messages, and
// whether its body is content-encoded (then lengths and ranges count the compressed bytes).

/** "HTTP 404 Not Found", or "HTTP 404" when the reason phrase is empty (HTTP/2). */
export function describeStatus(response: Response): string {
  return `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
}

/** The body's content encoding when it is not the file's own bytes ("identity"), else undefined. */
export function contentEncoding(headers: Headers): string | undefined {
  const encoding = headers.get('content-encoding');
  return encoding !== null && encoding.trim().toLowerCase() !== 'identity' ? encoding : undefined;
}
