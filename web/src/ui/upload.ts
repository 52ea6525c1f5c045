// Multipart uploads (a skills zip) with this tab's login token. api.ts sends JSON only; this is its
// one form-data sibling, with the same error handling: a 401 goes to the login page.
import { API_BASE, ApiError, setToken } from '../api.ts';
import { href, navigate } from '../router.ts';
import { toast } from './toast.tsx';

const TOKEN_KEY = 'agent-service.token';

export async function uploadForm<T>(path: string, form: FormData): Promise<T> {
  const token = sessionStorage.getItem(TOKEN_KEY);
  let response: Response;
  try {
    response = await fetch(`${API_BASE}${path}`, {
      method: 'POST',
      body: form,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  } catch {
    const failure = new ApiError(0, 'The server cannot be reached. Check that it is running.');
    toast(failure.message, 'error');
    throw failure;
  }
  if (response.status === 401) {
    setToken(null);
    navigate(href('login'), { replace: true });
    throw new ApiError(401, 'sign in again');
  }
  const body = (await response.json().catch(() => ({}))) as { error?: unknown };
  if (!response.ok) {
    const failure = new ApiError(
      response.status,
      typeof body.error === 'string' ? body.error : `the server answered ${response.status}`,
    );
    toast(failure.message, 'error');
    throw failure;
  }
  return body as T;
}
