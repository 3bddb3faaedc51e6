// The site's JSON API over fetch, with the session cookie: the answer
// parsed, or an Error whose message is the server's reason in the page's
// language (with the wait a Retry-After asks for) and whose status is the
// HTTP status. Used by the profile's boxes (mail, push, sessions).

import { errText, t } from './i18n.js';

export async function api(method, path, body) {
  const r = await fetch(path, {
    method, credentials: 'same-origin',
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try { data = await r.json(); } catch { /* not JSON */ }
  if (!r.ok) {
    const why = errText({ code: data && data.error, reason: data && data.reason, status: r.status });
    const wait = r.headers.get('Retry-After');
    throw Object.assign(new Error(wait ? t('mail.retry', { why, s: wait }) : why), { status: r.status });
  }
  return data;
}
