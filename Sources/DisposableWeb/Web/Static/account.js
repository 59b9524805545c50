// My account: a new picture goes to the API as it is; the server checks and re-encodes it.
import { t, problemText } from './app.js';

const input = document.getElementById('avatar-file');
input.addEventListener('change', async () => {
  const file = input.files[0];
  if (!file) return;
  const error = document.getElementById('avatar-error');
  const response = await fetch('/api/v1/me/avatar', { method: 'PUT', body: file, credentials: 'same-origin', headers: { 'Content-Type': file.type || 'application/octet-stream', Accept: 'application/json' } });
  if (response.ok) { location.reload(); return; }
  let problem = null;
  try { problem = await response.json(); } catch { /* not JSON */ }
  error.textContent = problemText(problem, response.status) || t('problem_other', { status: response.status });
  error.hidden = false;
});
