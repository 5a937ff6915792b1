// The page of `loaz serve`: Play (a board, the engine answers; play.js) and
// Runs (charts, ratings, checkpoints and games; runs.js). This last script
// keeps the address in step with the view and starts the page.
// Everything goes through the JSON API of docs/SERVE.md.
'use strict';

// ---- the address ------------------------------------------------------------
// The page keeps what it shows in its address (as lichess's analysis board
// and TensorBoard do): `#play?size=N&fen=F&moves=M1+M2&ply=P` (the board's
// size of a game from the start when not 8, the position set, the line on
// the board and the ply shown) or `#runs?run=I&game=NAME&ply=P`
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
    if (!game.start && $('size').value !== '8') params.set('size', $('size').value);
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

// Returns the longest prefix of `moves` that the server plays from `start`
// (null: the rules' start) and, when it is shorter, why the next one is not.
async function legalPrefix(start, moves) {
  let low = 0, high = moves.length, why = '';
  while (low < high) {  // moves[0..low) play; moves[0..high] is the first that might not
    const mid = Math.ceil((low + high) / 2);
    try {
      await api('/api/position', {fen: start, moves: moves.slice(0, mid), rules: rules()});
      low = mid;
    } catch (error) {
      why = error.message;
      high = mid - 1;
    }
  }
  return {moves: moves.slice(0, low), why: low < moves.length ? why : ''};
}

// Shows what the address names; the engine does not move on its own here.
// Whatever the address (the page's own, one with a position or moves, one
// from an older version, a mistyped one), the board and the status show: a
// part that cannot be read is left out and named in one line.
async function applyAddress() {
  const [view, query] = location.hash.slice(1).split('?');
  const params = new URLSearchParams(query || '');
  const problems = [];
  applyingAddress = true;
  try {
    if (view === 'runs') {
      const run = params.get('run');
      if (run !== null && [...$('run').options].some((o) => o.value === run)) $('run').value = run;
      else if (run !== null) problems.push(`no run ${run} on this server`);
      showView('runs', false);
      const name = params.get('game');
      if (name !== null && $('run').value !== '') {
        try {
          await openGame($('run').value, name);
          stepViewer(Number(params.get('ply')) || 0);
        } catch (error) {
          problems.push(`its game could not be opened (${error.message})`);
        }
      }
    } else {
      if (view !== 'play' && view !== '') problems.push(`no view '${view}' (play or runs): showing play`);
      showView('play', false);
      const size = params.get('size');
      let resized = false;
      if (size !== null && !['6', '7', '8'].includes(size)) {
        problems.push(`its board size '${size}' is not 6, 7 or 8`);
      } else if (size !== null || params.get('fen') === null) {
        resized = $('size').value !== (size || '8');
        $('size').value = size || '8';
      }
      // A position shown meanwhile (the user set one, stepped or played
      // while the server answered) wins over the address being read.
      const before = game.asked;
      let start = params.get('fen') || null;
      if (start !== null) {
        try {
          await api('/api/position', {fen: start, moves: [], rules: rules()});
        } catch (error) {
          problems.push(`its position could not be read (${error.message}): the start instead`);
          start = null;
        }
      }
      const asked = (params.get('moves') || '').split(' ').filter((m) => m !== '');
      const {moves, why} = await legalPrefix(start, asked);
      if (why) problems.push(`its moves stop after ${moves.length} of ${asked.length} (${why})`);
      let current = game.asked === before;  // nothing else was shown meanwhile
      // A first load has no board yet: it draws one whatever the address says.
      if (current && (game.status === null || resized || start !== game.start || moves.join(' ') !== game.line.join(' ')))
        current = await newGame(start, moves, false);
      const ply = params.get('ply');
      if (ply !== null && !/^\d+$/.test(ply)) problems.push(`its ply '${ply}' is not a number`);
      else if (current && ply !== null && Number(ply) !== game.ply) current = await goTo(Number(ply));
      // Overtaken: the address's problems are no longer about what is shown.
      if (!current) problems.length = 0;
    }
  } finally {
    applyingAddress = false;
  }
  writeAddress();
  $('address-note').textContent = problems.length ? 'The address: ' + problems.join('; ') + '.' : '';
  $('address-note').classList.toggle('hidden', problems.length === 0);
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
  // Play first shown after Runs (an address of the Runs view): its board.
  if (name === 'play' && game.status === null && !applyingAddress) newGame().catch(showError);
  if (name === 'runs') {
    loadRun().catch(showError);
    runTimer = setInterval(() => loadRun().catch(() => {}), 3000);
  }
}

async function start() {
  const info = await api('/api/info');
  for (const p of info.players) $('player').add(new Option(p, p));
  $('player').value = $('player').dataset.wanted = info.default_player;
  playerBoards = info.boards || {};
  $('player').addEventListener('change', () => { $('player').dataset.wanted = $('player').value; });
  for (const r of info.runs) $('run').add(new Option(r.name, r.index));
  $('run-empty').classList.toggle('hidden', info.runs.length > 0);
  for (const tab of document.querySelectorAll('.tab')) tab.addEventListener('click', () => showView(tab.dataset.view));
  $('run').addEventListener('change', () => { writeAddress(true); loadRun().catch(showError); });
  $('new-game').addEventListener('click', () => newGame().catch(showError));
  $('undo').addEventListener('click', () => undo().catch(showError));
  $('flip').addEventListener('click', () => { game.flipped = !game.flipped; render(); });
  $('colour').addEventListener('change', () => playLine(movesShown()).then((shown) => shown && maybeEngineMove()).catch(showError));
  for (const id of ['simultaneous', 'start', 'size']) $(id).addEventListener('change', () => newGame().catch(showError));
  $('set-position').addEventListener('click', () => newGame($('fen').value.trim() || null).catch(showError));
  $('load-record').addEventListener('click', () => loadRecord().catch(showError));
  $('copy-record').addEventListener('click', () => copyRecord().catch(showError));
  $('limit-kind').addEventListener('change', () => {
    const kind = $('limit-kind').value;
    $('limit').value = kind === 'playouts' ? 400 : 1;
    $('limit').disabled = kind === 'default';
  });
  $('analyse').addEventListener('click', () => toggleAnalysis().catch(showError));
  $('solve').addEventListener('click', () => solvePosition().catch(showError));
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
