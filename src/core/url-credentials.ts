// URLs may carry a user name and password (https://user:secret@proxy/v1). Views show them as
// https://***@proxy/v1, and a view written back keeps the stored credentials.

const MARK = '***';

/** The URL with any user name and password replaced by `***`; other text is returned as it is. */
export function redactUrlCredentials(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (url.username === '' && url.password === '') return value;
  url.username = MARK;
  url.password = '';
  return url.toString();
}

/**
 * A URL sent back as shown by a view (`***` for the credentials) means "unchanged": the stored
 * credentials are kept when the rest of the URL is the same. Any other value is taken as sent.
 */
export function restoreUrlCredentials(incoming: string, stored: string | undefined): string {
  if (stored === undefined) return incoming;
  let url: URL;
  try {
    url = new URL(incoming);
  } catch {
    return incoming;
  }
  if (url.username !== MARK || url.password !== '') return incoming;
  return redactUrlCredentials(stored) === url.toString() ? stored : incoming;
}
