// The page of `loaz serve`: Play (a board, the engine answers; play.js) and
// Runs (charts, ratings, checkpoints and games; runs.js). This last script
// keeps the address in step with the view and starts the page.
// Everything goes through the JSON API of docs/SERVE.md.
'use strict';

// ---- the address ------------------------------------------------------------
// The page keeps what it shows in its address (as lichess's analysis board
// and TensorBoard do): `#play?fen=F&moves=M1+M2&ply=P` (the position set,
// the line on the board and the ply shown) or `#runs?run=I&game=NAME&ply=P`
// (the run, the game in the viewer and its ply). A reload, a copied link and
// the back button bring back what was seen; a step along the line replaces
// the address, a change of view is a step of the history.
let applyingAddress = false;

function addressOf() {
  const params = new URLSearchParams();
  if (currentView === 'runs') {
    if ($('run').value !== '') params.set('run', $('run').value);
    if (viewer.name !== null && viewer.run === $('run').value) {
      params.set('game', viewer.name);
      params.set('ply', viewer.ply);
    }
  } else {
    if (game.start) params.set('fen', game.start);
    if (game.line.length) params.set('moves', game.line.join(' '));
    if (game.ply !== game.line.length) params.set('ply', game.ply);
  }
  const query = params.toString();
  return '#' + currentView + (query ? '?' + query : '');
}

function writeAddress(push = false) {
  if (applyingAddress) return;
  const address = addressOf();
  if (address === location.hash) return;
  if (push) history.pushState(null, '', address);
  else history.replaceState(null, '', address);
}

// Shows what the address names; the engine does not move on its own here.
async function applyAddress() {
  const [view, query] = location.hash.slice(1).split('?');
  const params = new URLSearchParams(query || '');
  applyingAddress = true;
  try {
    if (view === 'runs') {
      const run = params.get('run');
      if (run !== null && [...$('run').options].some((o) => o.value === run)) $('run').value = run;
      showView('runs', false);
      const name = params.get('game');
      if (name !== null && $('run').value !== '') {
        await openGame($('run').value, name);
        stepViewer(Number(params.get('ply')) || 0);
      }
    } else {
      showView('play', false);
      const start = params.get('fen') || null;
      const moves = (params.get('moves') || '').split(' ').filter((m) => m !== '');
      if (start !== game.start || moves.join(' ') !== game.line.join(' ')) await newGame(start, moves, false);
      const ply = params.get('ply');
      if (ply !== null && Number(ply) !== game.ply) await goTo(Number(ply));
    }
  } finally {
    applyingAddress = false;
  }
  writeAddress();
}

// ---- views and start-up -----------------------------------------------------

// Shows a view; `push` makes it a step of the browser's history (a tab's
// click), so that the back button returns to the view before.
function showView(name, push = true) {
  const changed = name !== currentView;
  currentView = name;
  if (changed) writeAddress(push);
  for (const view of ['play', 'runs']) {
    $('view-' + view).classList.toggle('hidden', view !== name);
    $('tab-' + view).classList.toggle('active', view === name);
  }
  clearInterval(runTimer);
  if (name === 'runs') {
    loadRun().catch(showError);
    runTimer = setInterval(() => loadRun().catch(() => {}), 3000);
  }
}

async function start() {
  const info = await api('/api/info');
  for (const p of info.players) $('player').add(new Option(p, p));
  $('player').value = info.default_player;
  for (const r of info.runs) $('run').add(new Option(r.name, r.index));
  $('run-empty').classList.toggle('hidden', info.runs.length > 0);
  for (const tab of document.querySelectorAll('.tab')) tab.addEventListener('click', () => showView(tab.dataset.view));
  $('run').addEventListener('change', () => { writeAddress(true); loadRun().catch(showError); });
  $('new-game').addEventListener('click', () => newGame().catch(showError));
  $('undo').addEventListener('click', () => undo().catch(showError));
  $('flip').addEventListener('click', () => { game.flipped = !game.flipped; render(); });
  $('colour').addEventListener('change', () => playLine(movesShown()).then((shown) => shown && maybeEngineMove()).catch(showError));
  for (const id of ['simultaneous', 'start']) $(id).addEventListener('change', () => newGame().catch(showError));
  $('set-position').addEventListener('click', () => newGame($('fen').value.trim() || null).catch(showError));
  $('load-record').addEventListener('click', () => loadRecord().catch(showError));
  $('copy-record').addEventListener('click', () => copyRecord().catch(showError));
  $('limit-kind').addEventListener('change', () => {
    const kind = $('limit-kind').value;
    $('limit').value = kind === 'playouts' ? 400 : 1;
    $('limit').disabled = kind === 'default';
  });
  $('analyse').addEventListener('click', () => toggleAnalysis().catch(showError));
  $('nav-first').addEventListener('click', () => goTo(0).catch(showError));
  $('nav-prev').addEventListener('click', () => goTo(game.ply - 1).catch(showError));
  $('nav-next').addEventListener('click', () => goTo(game.ply + 1).catch(showError));
  $('nav-last').addEventListener('click', () => goTo(game.line.length).catch(showError));
  document.addEventListener('keydown', onKey);
  $('viewer-first').addEventListener('click', () => stepViewer(0));
  $('viewer-prev').addEventListener('click', () => stepViewer(viewer.ply - 1));
  $('viewer-next').addEventListener('click', () => stepViewer(viewer.ply + 1));
  $('viewer-last').addEventListener('click', () => stepViewer(viewer.moves.length));
  window.addEventListener('popstate', () => applyAddress().catch(showError));
  if (location.hash.length > 1) await applyAddress();
  else await newGame();
}

start().catch(showError);
