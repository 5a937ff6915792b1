// The page's Play view: an analysis board where the engine answers, its
// search streamed as it runs (board.js draws, app.js starts it).
'use strict';

// ---- Play: an analysis board ---------------------------------------------

const game = {
  start: null,      // the start position string (null: the rules' start)
  line: [],         // the moves of the line on the board, e.g. "b1-b3"
  ply: 0,           // the ply shown: line[0..ply) are played
  status: null,     // /api/position's reply for the position shown
  selected: null,   // the square of the piece picked
  flipped: false,
  search: null,     // the running search: {kind: 'move' or 'analyse', abort, base}
  analysis: null,   // the last analysis shown, with the line it is of: {a, base, side}
  asked: 0,         // the number of the latest position request
  client: Math.random().toString(36).slice(2, 12),
};

// The rules of the page's controls; the board's size only for a game from
// the start (a position set by its string has its own).
function rules() {
  const r = {simultaneous: $('simultaneous').value, start: $('start').value};
  if (!game.start) r.size = Number($('size').value);
  return r;
}
function movesShown() { return game.line.slice(0, game.ply); }
function request(moves = movesShown()) { return {fen: game.start, moves, rules: rules()}; }
function humanColour() { return $('colour').value; }
function humanMoves(side) { return humanColour() === 'both' || humanColour() === side; }

function limitFields() {
  const kind = $('limit-kind').value, value = Number($('limit').value);
  if (kind === 'seconds') return {seconds: value};
  if (kind === 'playouts') return {playouts: Math.round(value)};
  return {};
}

// Posts a search with "stream": true and calls onUpdate with each analysis
// as it comes; returns the last line (the reply, "done": true).
async function streamSearch(path, body, onUpdate, signal) {
  const response = await fetch(path, {
    method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({...body, stream: true}), signal});
  if (!response.ok) {
    const data = await response.json().catch(() => ({}));
    throw new Error(data.error || response.statusText);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  for (;;) {
    const {value, done} = await reader.read();
    if (done) throw new Error('the search ended without its answer');
    pending += decoder.decode(value, {stream: true});
    for (let end; (end = pending.indexOf('\n')) >= 0;) {
      const line = JSON.parse(pending.slice(0, end));
      pending = pending.slice(end + 1);
      if (line.done) {
        if (line.error) throw new Error(line.error);
        return line;
      }
      onUpdate(line.analysis);
    }
  }
}

// Draws arrows for the best moves of an analysis of the position shown:
// the most visited in blue, others in green, thicker by their share.
function drawArrows(svg, a) {
  const defs = element('defs', {}, svg);
  for (const [id, fill] of [['head-best', ARROW_BEST], ['head-other', ARROW_OTHER]]) {
    const marker = element('marker', {id, viewBox: '0 0 10 10', refX: 5, refY: 5, markerWidth: 3, markerHeight: 3, orient: 'auto'}, defs);
    element('path', {d: 'M 0 0 L 10 5 L 0 10 z', fill}, marker);
  }
  let moves;
  if (a.top && a.top.length) {
    const total = a.top.reduce((n, c) => n + c.visits, 0) || 1;
    moves = a.top.slice(0, 4).filter((c, i) => i === 0 || c.visits / total >= 0.05).map((c) => ({move: c.move, share: c.visits / total}));
  } else if (a.pv && a.pv.length) {
    moves = [{move: a.pv[0], share: 1}];
  } else {
    return;
  }
  moves.forEach(({move, share}, i) => {
    const n = sizeOf(game.status.fen);
    const [x1, y1] = squareCentre(move.slice(0, 2), n, game.flipped);
    const [x2, y2] = squareCentre(move.slice(3, 5), n, game.flipped);
    const shorten = 0.3 * SQUARE / Math.hypot(x2 - x1, y2 - y1);
    element('line', {x1, y1, x2: x2 - (x2 - x1) * shorten, y2: y2 - (y2 - y1) * shorten, class: 'arrow',
      stroke: i === 0 ? ARROW_BEST : ARROW_OTHER, 'stroke-width': 4 + 8 * share, opacity: i === 0 ? 0.85 : 0.6,
      'marker-end': `url(#${i === 0 ? 'head-best' : 'head-other'})`, 'data-move': move, 'data-share': share.toFixed(4)}, svg);
  });
}

function render() {
  const s = game.status;
  if (!s) return;
  const searching = game.search !== null && game.search.kind === 'move';
  const mine = !s.over && !searching && humanMoves(s.side) ? s.side[0] : null;
  const targets = game.selected ? s.legal.filter((m) => m.startsWith(game.selected)).map((m) => m.slice(3, 5)) : [];
  const lastMove = game.ply > 0 ? game.line[game.ply - 1] : null;
  const last = lastMove ? [lastMove.slice(0, 2), lastMove.slice(3, 5)] : [];
  const svg = $('board');
  drawBoard(svg, s.fen, {flipped: game.flipped, selected: game.selected, targets, last, mine, onSquare: clickSquare});
  // The analysis belongs to one position: elsewhere its arrows go and its
  // bar fades (its principal variation still leads back there).
  const shown = game.analysis;
  const current = shown !== null && shown.base.join(' ') === movesShown().join(' ');
  if (current) drawArrows(svg, shown.a);
  $('eval-bar').classList.toggle('stale', shown !== null && !current);
  renderMoves();
  $('nav-ply').textContent = `${game.ply}/${game.line.length}`;
  let text;
  if (s.over) text = `Game over: ${s.result === 'draw' ? 'a draw' : s.result + ' wins'} (${s.reason})`;
  else if (searching) text = `${$('player').value} is thinking...`;
  else text = `${s.side} to move${humanColour() === s.side ? ' (you)' : ''}`;
  $('status').textContent = text;
  $('status').dataset.state = s.over ? 'over' : searching ? 'thinking' : game.search ? 'analysing' : 'waiting';
  writeAddress();
}

// The move list: each move a button that shows its position.
function renderMoves() {
  const list = $('moves');
  list.textContent = '';
  for (let i = 0; i < game.line.length; i += 2) {
    const li = document.createElement('li');
    for (let k = i; k < Math.min(i + 2, game.line.length); k++) {
      const button = document.createElement('button');
      button.className = 'move' + (k + 1 === game.ply ? ' current' : '');
      button.textContent = game.line[k];
      button.dataset.ply = k + 1;
      button.addEventListener('click', () => goTo(k + 1).catch(showError));
      li.appendChild(button);
    }
    list.appendChild(li);
  }
  const current = list.querySelector('.current');
  if (current) current.scrollIntoView({block: 'nearest'});
}

function showError(error) { $('status').textContent = 'Error: ' + error.message; }

// Shows an analysis of the position after `base` (side: who moves there):
// the evaluation bar, the arrows, the principal variation and the candidates.
function showAnalysis(a, base, side) {
  game.analysis = {a, base, side};
  const lines = [`${a.player}: ${a.seconds.toFixed(2)} s`];
  if (a.nodes !== undefined) {
    let nodes = `${a.nodes} ${a.top ? 'playouts' : 'nodes'}, ${Math.round(a.nodes_per_second)}/s`;
    if (a.reused) nodes += `, ${a.reused} kept from the last search`;
    lines.push(nodes);
  }
  if (a.wdl) lines.push(`value ${a.value.toFixed(3)} for ${side}`);
  if (a.depth !== undefined) lines.push(`depth ${a.depth}  score ${a.score} for ${side}`);
  $('analysis').textContent = lines.join('\n');

  const bar = $('eval-bar');
  if (a.wdl) {
    const [win, draw, loss] = a.wdl;
    const black = side === 'black' ? win : loss, white = side === 'black' ? loss : win;
    $('eval-black').style.height = `${100 * black}%`;
    $('eval-draw').style.height = `${100 * draw}%`;
    $('eval-white').style.height = `${100 * white}%`;
    bar.dataset.wdl = [black, draw, white].map((p) => p.toFixed(6)).join(' ');
    $('eval-text').textContent = `Black ${(100 * black).toFixed(1)}%  draw ${(100 * draw).toFixed(1)}%  White ${(100 * white).toFixed(1)}%`;
  } else if (a.score !== undefined) {
    $('eval-text').textContent = `score ${a.score} for ${side}, depth ${a.depth}`;
  }

  const pv = $('pv');
  pv.textContent = '';
  (a.pv || []).forEach((move, i) => {
    const button = document.createElement('button');
    button.className = 'move';
    button.textContent = move;
    button.title = 'go to the position after this move';
    button.addEventListener('click', () => playLine(base.concat(a.pv.slice(0, i + 1))).catch(showError));
    pv.appendChild(button);
  });

  const box = $('candidates');
  box.textContent = '';
  if (a.top) {
    const table = document.createElement('table');
    table.innerHTML = '<tr><th>move</th><th>visits</th><th>prior</th><th>q</th></tr>';
    for (const c of a.top) {
      const row = table.insertRow();
      for (const v of [c.move, c.visits, c.prior.toFixed(3), c.q.toFixed(3)]) row.insertCell().textContent = v;
    }
    box.appendChild(table);
  }
  render();
}

// Stops the running search (the tab's, on the server too).
function stopSearch() {
  if (!game.search) return;
  game.search.abort.abort();
  api('/api/stop', {client: game.client}).catch(() => {});
  game.search = null;
  $('analyse').textContent = 'Analyse';
  $('analyse').classList.remove('running');
}

// Asks for the status of the position shown and shows it. Replies can come
// back out of order (two quick steps back ask twice): only the latest
// request's reply is kept, so the board never shows a position the line has
// left. Returns whether this reply is the one shown.
// The board sizes each player plays, by name (/api/info's `boards`).
let playerBoards = {};

// Offers the players that play the board of `size`: the others are shown
// disabled, and the choice moves off one that does not play it and back to
// the one last chosen when it does.
function offerPlayers(size) {
  const select = $('player');
  for (const option of select.options) {
    const boards = playerBoards[option.value];
    option.disabled = Array.isArray(boards) && !boards.includes(size);
  }
  const wanted = [...select.options].find((o) => o.value === select.dataset.wanted && !o.disabled);
  const first = [...select.options].find((o) => !o.disabled);
  if (wanted) select.value = wanted.value;
  else if (select.selectedOptions[0]?.disabled && first) select.value = first.value;
}

async function showPosition() {
  const asked = ++game.asked;
  const status = await api('/api/position', request());
  if (asked !== game.asked) return false;
  game.status = status;
  offerPlayers(sizeOf(status.fen));
  $('solve-result').textContent = '';
  render();
  return true;
}

// Shows ply `ply` of the line: no engine move follows. Returns whether
// its position is the one shown (no later request overtook it).
async function goTo(ply) {
  stopSearch();
  game.ply = Math.max(0, Math.min(game.line.length, ply));
  game.selected = null;
  return showPosition();
}

// Makes `moves` the line and shows its end (a branch where it leaves the old line).
async function playLine(moves) {
  stopSearch();
  const old = game.line;
  const keep = moves.length <= old.length && moves.every((m, i) => m === old[i]);
  game.line = keep ? old : moves;
  game.ply = moves.length;
  game.selected = null;
  return showPosition();
}

async function playMove(move) {
  if (await playLine(movesShown().concat([move]))) maybeEngineMove();
}

async function maybeEngineMove() {
  const s = game.status;
  if (!s || s.over || game.search || humanMoves(s.side)) return;
  const base = movesShown();
  const search = {kind: 'move', abort: new AbortController(), base};
  game.search = search;
  render();
  try {
    const reply = await streamSearch('/api/genmove', {...request(base), player: $('player').value, client: game.client, ...limitFields()},
      (a) => { if (game.search === search) showAnalysis(a, base, s.side); }, search.abort.signal);
    if (game.search !== search) return;
    game.search = null;
    showAnalysis(reply.analysis, base, s.side);
    game.line = base.concat([reply.move]);
    game.ply = game.line.length;
    game.status = reply.status;
    game.asked++;  // a position reply still on its way is older than this one
    render();
  } catch (error) {
    if (game.search === search) { game.search = null; showError(error); render(); }
  }
}

// Solve: the solver proves the position shown, 10 s at most (docs/SOLVER.md):
// the result for the side to move and the proof's line, or that it did not
// finish. A reply for a position the board has left is dropped.
async function solvePosition() {
  const s = game.status;
  if (!s || s.over) return;
  const asked = game.asked;
  $('solve').disabled = true;
  $('solve-result').textContent = 'Solving (10 s at most)...';
  try {
    const r = await api('/api/solve', {...request(), seconds: 10});
    if (asked !== game.asked) return;
    $('solve-result').textContent = r.result === 'unknown'
      ? `The solver did not finish in 10 s (${r.nodes.toLocaleString()} positions searched).`
      : `Proven ${r.result} for ${s.side}` + (r.move ? ` with ${r.move}` : '') +
        (r.line.length > 1 ? `: ${r.line.join(' ')}` : '') +
        (r.proof_size ? ` (a proof of ${r.proof_size.toLocaleString()} positions)` : '') + '.';
  } catch (error) {
    if (asked === game.asked) $('solve-result').textContent = '';
    throw error;
  } finally {
    $('solve').disabled = false;
  }
}

// Analyse: the engine searches the position shown until stopped (the
// button again, a move, a step) or its bounds.
async function toggleAnalysis() {
  if (game.search) {
    const kind = game.search.kind;
    stopSearch();
    render();
    if (kind === 'analyse') return;
  }
  const s = game.status;
  if (!s || s.over) return;
  const base = movesShown();
  const search = {kind: 'analyse', abort: new AbortController(), base};
  game.search = search;
  $('analyse').textContent = 'Stop';
  $('analyse').classList.add('running');
  render();
  try {
    const reply = await streamSearch('/api/analyse', {...request(base), player: $('player').value, client: game.client},
      (a) => { if (game.search === search) showAnalysis(a, base, s.side); }, search.abort.signal);
    if (game.search === search) showAnalysis(reply.analysis, base, s.side);
  } catch (error) {
    if (game.search === search) showError(error);
  } finally {
    if (game.search === search) {
      game.search = null;
      $('analyse').textContent = 'Analyse';
      $('analyse').classList.remove('running');
      render();
    }
  }
}

function clickSquare(name) {
  const s = game.status;
  if (!s || s.over || (game.search && game.search.kind === 'move') || !humanMoves(s.side)) return;
  const pieces = piecesOf(s.fen);
  if (game.selected) {
    const move = s.legal.find((m) => m.startsWith(game.selected) && m.slice(3, 5) === name);
    if (move) {
      game.selected = null;
      playMove(move).catch(showError);
      return;
    }
  }
  game.selected = pieces[name] === s.side[0] && s.legal.some((m) => m.startsWith(name)) ? name : null;
  render();
}

// Starts a game from `start` (null: the rules' start) with `moves` played;
// the engine moves when it is its turn and `engineMoves`. Returns whether
// its position is the one shown.
async function newGame(start = null, moves = [], engineMoves = true) {
  stopSearch();
  game.start = start;
  game.line = moves;
  game.ply = moves.length;
  game.selected = null;
  game.analysis = null;
  for (const id of ['analysis', 'pv', 'candidates', 'eval-text']) $(id).textContent = '';
  for (const id of ['eval-black', 'eval-white']) $(id).style.height = '0';
  $('eval-draw').style.height = '100%';
  delete $('eval-bar').dataset.wdl;
  const shown = await showPosition();
  if (shown && engineMoves) maybeEngineMove();
  return shown;
}

async function undo() {
  stopSearch();
  // Back to the human's turn: the engine's reply and the human's move.
  let moves = movesShown();
  do moves = moves.slice(0, -1); while (moves.length && !humanMoves((await api('/api/position', request(moves))).side));
  game.line = moves;
  await goTo(moves.length);
}

async function loadRecord() {
  const data = await api('/api/record/read', {text: $('record').value});
  $('simultaneous').value = data.rules.simultaneous;
  $('start').value = data.rules.start;
  stopSearch();
  game.start = data.fen;
  game.line = data.moves;
  await goTo(data.moves.length);
}

async function copyRecord() {
  const human = humanColour();
  const name = (side) => human === side || human === 'both' ? 'you' : $('player').value;
  const data = await api('/api/record/write', {...request(game.line), black: name('black'), white: name('white')});
  $('record').value = data.text;
  if (navigator.clipboard) navigator.clipboard.writeText(data.text).catch(() => {});
}

// Left and Right step through the line, Home and End jump (outside fields).
function onKey(event) {
  if (['INPUT', 'TEXTAREA', 'SELECT'].includes(document.activeElement.tagName) || $('view-play').classList.contains('hidden')) return;
  const to = {ArrowLeft: game.ply - 1, ArrowRight: game.ply + 1, Home: 0, End: game.line.length}[event.key];
  if (to === undefined) return;
  event.preventDefault();
  goTo(to).catch(showError);
}
