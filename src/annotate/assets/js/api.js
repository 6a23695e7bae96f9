// goldgate annotate: the page's calls to its server. `api` sends JSON with the page's
// credentials and throws an `ApiError` (status, code, problems) for every refusal, a network
// failure included.

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.message) || `HTTP ${status}`);
    this.status = status;
    this.code = (body && body.error) || '';
    this.problems = (body && Array.isArray(body.problems) && body.problems) || [];
  }
}

export async function api(method, path, body) {
  const init = { method, headers: { Accept: 'application/json' }, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (_) {
    throw new ApiError(0, {
      error: 'network',
      message: 'The server did not answer. Is goldgate annotate still running?',
    });
  }
  const text = await res.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch (_) {
      data = null;
    }
  }
  if (!res.ok) {
    const fallback = {
      error: res.status === 401 ? 'unauthorized' : 'http',
      message:
        res.status === 401
          ? 'Not authorised: open the address goldgate annotate printed, with its token.'
          : `The server answered HTTP ${res.status}.`,
    };
    throw new ApiError(res.status, data && data.error ? data : fallback);
  }
  return data;
}
