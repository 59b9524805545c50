// The camera: rear camera first, switch, torch, a screen flash for selfies, full resolution
// through ImageCapture where the browser has it; short videos where the event takes them; every shot goes
// to the upload queue.
import { t, eventConfig, toast, problemText } from './app.js';
import { UploadQueue, watchQueue } from './queue.js';

const config = eventConfig();
const queue = new UploadQueue(config.id, config.firstLook);
const video = document.getElementById('video');
const shutter = document.getElementById('shutter');
const switchButton = document.getElementById('switch');
const torchButton = document.getElementById('torch');
const flash = document.getElementById('flash');
const message = document.getElementById('camera-message');
const shotsText = document.getElementById('shots-text');
const intro = document.getElementById('camera-intro');
const denied = document.getElementById('camera-denied');
const viewfinder = document.getElementById('viewfinder');
const fileInput = document.getElementById('file-input');

let facing = 'environment';
let stream = null;
let capturing = false;
// In video mode the shutter records, up to MAX_SECONDS, with a timer.
const MAX_SECONDS = 30;
const modeButtons = { photo: document.getElementById('mode-photo'), video: document.getElementById('mode-video') };
const timer = document.getElementById('record-timer');
const photoLabel = shutter.getAttribute('aria-label');
let mode = 'photo';
let recorder = null;
const live = config.status === 'live';

const shots = watchQueue(queue, config, t, (left) => {
  shotsText.textContent = left === Infinity ? '' : left === 0 ? t('no_shots') : left === 1 ? t('shot_left_one') : t('shots_left', { n: left });
  updateShutter();
});

function updateShutter() {
  shutter.disabled = !recorder && (!live || capturing || shots.shotsLeft() <= 0 || !stream);
  fileInput.disabled = !live || shots.shotsLeft() <= 0;
  // The film used up: no button that cannot do anything.
  fileInput.closest('.fallback').hidden = shots.shotsLeft() <= 0;
}

function say(text) {
  message.textContent = text;
  message.hidden = !text;
}

async function start() {
  stop();
  if (!navigator.mediaDevices?.getUserMedia) {
    // Plain http on a phone, or an old browser: the file input below opens the phone's own camera.
    viewfinder.hidden = true;
    return;
  }
  const frames = mode === 'video'
    ? { facingMode: { ideal: facing }, width: { ideal: 1920 }, height: { ideal: 1080 } }
    : { facingMode: { ideal: facing }, width: { ideal: 4032 }, height: { ideal: 3024 } };
  try {
    // Videos with sound where the microphone is allowed, silent where it is not.
    stream = await navigator.mediaDevices.getUserMedia({ audio: mode === 'video', video: frames })
      .catch((error) => (mode === 'video' ? navigator.mediaDevices.getUserMedia({ audio: false, video: frames }) : Promise.reject(error)));
  } catch (error) {
    if (error.name === 'NotAllowedError' || error.name === 'SecurityError') {
      viewfinder.hidden = true;
      denied.hidden = false;
    } else {
      say(t('camera_error'));
    }
    updateShutter();
    return;
  }
  denied.hidden = true;
  viewfinder.hidden = false;
  video.srcObject = stream;
  const track = stream.getVideoTracks()[0];
  const capabilities = track.getCapabilities?.() || {};
  torchButton.hidden = !capabilities.torch;
  torchButton.setAttribute('aria-pressed', 'false');
  video.style.transform = facing === 'user' ? 'scaleX(-1)' : '';
  say(live ? '' : t('not_live'));
  updateShutter();
}

function stop() {
  stream?.getTracks().forEach((track) => track.stop());
  stream = null;
  updateShutter(); // no shutter between two cameras: a tap then would record nothing (switching to video, say)
}

/** The best still the browser can give: ImageCapture's full-resolution photo, else the video frame. */
async function grab() {
  const track = stream.getVideoTracks()[0];
  if ('ImageCapture' in window) {
    try {
      const capture = new ImageCapture(track);
      const photo = await Promise.race([capture.takePhoto(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 4000))]);
      if (photo && photo.size > 0) return photo;
    } catch { /* fall back to the frame */ }
  }
  const canvas = document.createElement('canvas');
  canvas.width = video.videoWidth;
  canvas.height = video.videoHeight;
  const context = canvas.getContext('2d');
  if (facing === 'user') { context.translate(canvas.width, 0); context.scale(-1, 1); }
  context.drawImage(video, 0, 0);
  return new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.92));
}

async function takePhoto() {
  if (shutter.disabled) return;
  capturing = true;
  updateShutter();
  try {
    if (facing === 'user') {
      // No flash on the front: light the face with the screen for a moment.
      flash.classList.add('on');
      await new Promise((resolve) => setTimeout(resolve, 180));
    }
    const blob = await grab();
    flash.classList.remove('on');
    flash.classList.remove('blink');
    void flash.offsetWidth;
    flash.classList.add('blink');
    if (navigator.vibrate) navigator.vibrate(30);
    await queue.add(blob, 'camera');
  } catch (error) {
    say(t('camera_error'));
  } finally {
    flash.classList.remove('on');
    capturing = false;
    updateShutter();
  }
}

function clock(seconds) { return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`; }

/** What this browser records in: MP4 where it can (Safari), else WebM; the server makes the playable copy anyway. */
function recordingType() {
  const types = ['video/mp4;codecs=avc1.42E01E,mp4a.40.2', 'video/mp4', 'video/webm;codecs=vp8,opus', 'video/webm'];
  return types.find((type) => window.MediaRecorder?.isTypeSupported(type)) ?? '';
}

function startRecording() {
  if (shutter.disabled || !stream || !window.MediaRecorder) return;
  const type = recordingType();
  const chunks = [];
  recorder = new MediaRecorder(stream, { ...(type && { mimeType: type }), videoBitsPerSecond: 2_500_000 });
  const started = Date.now();
  const tick = () => {
    const elapsed = Date.now() - started;
    timer.textContent = `${clock(Math.min(MAX_SECONDS, Math.floor(elapsed / 1000)))} / ${clock(MAX_SECONDS)}`;
    if (elapsed >= MAX_SECONDS * 1000 && recorder?.state === 'recording') recorder.stop();
  };
  const ticking = setInterval(tick, 250);
  recorder.ondataavailable = (event) => { if (event.data.size) chunks.push(event.data); };
  recorder.onstop = async () => {
    clearInterval(ticking);
    const blob = new Blob(chunks, { type: (recorder.mimeType || type || 'video/webm').split(';')[0] });
    recorder = null;
    shutter.classList.remove('recording');
    shutter.setAttribute('aria-label', t('camera_record'));
    timer.classList.remove('recording');
    if (blob.size) await queue.add(blob, 'camera');
    updateShutter();
  };
  recorder.start(1000);
  shutter.classList.add('recording');
  shutter.setAttribute('aria-label', t('camera_stop'));
  timer.classList.add('recording');
  if (navigator.vibrate) navigator.vibrate(30);
  tick();
  updateShutter();
}

function setMode(next) {
  if (recorder || next === mode) return;
  mode = next;
  for (const [name, button] of Object.entries(modeButtons)) button.setAttribute('aria-pressed', String(name === mode));
  shutter.classList.toggle('video', mode === 'video');
  shutter.setAttribute('aria-label', mode === 'video' ? t('camera_record') : photoLabel);
  timer.hidden = mode !== 'video';
  timer.textContent = `${clock(0)} / ${clock(MAX_SECONDS)}`;
  start();
}

function shoot() {
  if (mode === 'video') {
    if (recorder) recorder.stop(); else startRecording();
  } else {
    takePhoto();
  }
}

modeButtons.photo?.addEventListener('click', () => setMode('photo'));
modeButtons.video?.addEventListener('click', () => setMode('video'));
shutter.addEventListener('click', shoot);
switchButton.addEventListener('click', () => { facing = facing === 'environment' ? 'user' : 'environment'; start(); });
torchButton.addEventListener('click', async () => {
  const track = stream?.getVideoTracks()[0];
  if (!track) return;
  const on = torchButton.getAttribute('aria-pressed') !== 'true';
  try {
    await track.applyConstraints({ advanced: [{ torch: on }] });
    torchButton.setAttribute('aria-pressed', String(on));
  } catch { torchButton.hidden = true; }
});
document.addEventListener('keydown', (event) => {
  if ((event.key === ' ' || event.key === 'Enter') && event.target === document.body) { event.preventDefault(); shoot(); }
});
document.getElementById('camera-start').addEventListener('click', () => { intro.hidden = true; viewfinder.hidden = false; start(); });

// The introduction: its three screens the first time on this browser, then only the camera's word.
const introSeen = 'disposable-intro-seen';
function showStep(step) {
  for (const screen of intro.querySelectorAll('.intro-step')) screen.hidden = screen.dataset.step !== String(step);
  intro.querySelectorAll('.intro-dots span').forEach((dot, index) => dot.classList.toggle('on', index + 1 === step));
  const last = step === 3;
  document.getElementById('intro-skip').hidden = last;
  document.getElementById('intro-next').hidden = last;
  document.getElementById('camera-start').hidden = !last;
  if (last) { try { localStorage.setItem(introSeen, '1'); } catch { /* private mode: shown again next time */ } }
}
let step = 1;
try { if (localStorage.getItem(introSeen)) step = 3; } catch { /* no storage: the whole introduction */ }
showStep(step);
document.getElementById('intro-next').addEventListener('click', () => showStep(++step));
document.getElementById('intro-skip').addEventListener('click', () => showStep(step = 3));
document.getElementById('camera-retry').addEventListener('click', start);
fileInput.addEventListener('change', async () => {
  let left = shots.shotsLeft();
  for (const file of fileInput.files) {
    if (left <= 0) { toast(t('no_shots')); break; }
    await queue.add(file, fileInput.dataset.source);
    left -= 1;
  }
  fileInput.value = '';
});
queue.addEventListener('uploaded', () => toast(t('upload_done'), 1500));
queue.addEventListener('duplicate', () => toast(t('duplicate'), 3000));
queue.addEventListener('failed', (event) => toast(t('upload_failed', { reason: problemText(event.detail.problem, event.detail.status) }), 6000));
queue.addEventListener('held', (event) => toast(problemText(event.detail.problem, event.detail.status), 6000));
document.addEventListener('visibilitychange', () => {
  if (document.hidden) { if (recorder?.state === 'recording') recorder.stop(); stop(); } else if (!intro || intro.hidden) start();
});

if (intro.hidden) start();
