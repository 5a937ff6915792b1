// The page of `loaz serve`: Play (a board, the engine answers) and Runs
// (charts, ratings, checkpoints and games of the runs the server shows).
// Everything goes through the JSON API of docs/SERVE.md.
'use strict';

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';
const FILES = 'abcdefgh';
const SQUARE = 50, MARGIN = 20;
const ARROW_BEST = '#2a6fdb', ARROW_OTHER = '#3c8d3c';

// ---- the API --------------------------------------------------------------

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)};
  const response = await fetch(path, init);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

// ---- the board --------------------------------------------------------------

// Returns {square name: 'b' or 'w'} of a position string.
function piecesOf(fen) {
  const pieces = {};
  const ranks = fen.split(' ')[0].split('/');
  ranks.forEach((row, i) => {
    let file = 0;
    for (const ch of row) {
      if (ch >= '1' && ch <= '8') file += Number(ch);
      else { pieces[FILES[file] + (8 - i)] = ch.toLowerCase(); file += 1; }
    }
  });
  return pieces;
}

function element(name, attributes, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// Draws fen on svg. options: flipped, selected (square), targets (squares),
// last ([from, to]), mine ('b' or 'w': pieces that can be picked), onSquare(name).
function drawBoard(svg, fen, options = {}) {
  svg.textContent = '';
  const pieces = piecesOf(fen);
  const targets = new Set(options.targets || []);
  const last = new Set(options.last || []);
  for (let r = 0; r < 8; r++) {
    for (let f = 0; f < 8; f++) {
      const file = options.flipped ? 7 - f : f, rank = options.flipped ? r : 7 - r;
      const name = FILES[file] + (rank + 1);
      const x = MARGIN + f * SQUARE, y = r * SQUARE;
      const classes = ['square', (file + rank) % 2 ? 'light' : 'dark'];
      if (targets.has(name)) classes.push('target');
      if (last.has(name)) classes.push('last');
      const square = element('rect', {x, y, width: SQUARE, height: SQUARE, class: classes.join(' '), 'data-square': name}, svg);
      if (options.onSquare) square.addEventListener('click', () => options.onSquare(name));
      const piece = pieces[name];
      if (piece) {
        const pc = ['piece', piece === 'b' ? 'black' : 'white'];
        if (piece === options.mine) pc.push('mine');
        if (name === options.selected) pc.push('selected');
        const circle = element('circle', {cx: x + SQUARE / 2, cy: y + SQUARE / 2, r: SQUARE * 0.38, class: pc.join(' '), 'data-square': name}, svg);
        if (options.onSquare) circle.addEventListener('click', () => options.onSquare(name));
      }
    }
  }
  for (let i = 0; i < 8; i++) {
    const file = options.flipped ? 7 - i : i, rank = options.flipped ? i + 1 : 8 - i;
    element('text', {x: MARGIN + i * SQUARE + SQUARE / 2 - 4, y: 8 * SQUARE + 15, class: 'coord'}, svg).textContent = FILES[file];
    element('text', {x: 4, y: i * SQUARE + SQUARE / 2 + 4, class: 'coord'}, svg).textContent = rank;
  }
}

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

function rules() { return {simultaneous: $('simultaneous').value, start: $('start').value}; }
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

// The centre of a square on the board as drawn.
function squareCentre(name) {
  const file = FILES.indexOf(name[0]), rank = Number(name[1]) - 1;
  const f = game.flipped ? 7 - file : file, r = game.flipped ? rank : 7 - rank;
  return [MARGIN + f * SQUARE + SQUARE / 2, r * SQUARE + SQUARE / 2];
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
    const [x1, y1] = squareCentre(move.slice(0, 2)), [x2, y2] = squareCentre(move.slice(3, 5));
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
async function showPosition() {
  const asked = ++game.asked;
  const status = await api('/api/position', request());
  if (asked !== game.asked) return false;
  game.status = status;
  render();
  return true;
}

// Shows ply `ply` of the line: no engine move follows.
async function goTo(ply) {
  stopSearch();
  game.ply = Math.max(0, Math.min(game.line.length, ply));
  game.selected = null;
  await showPosition();
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
  if (await showPosition() && engineMoves) maybeEngineMove();
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

// ---- Runs -------------------------------------------------------------------

const charts = {};
const viewer = {fens: [], moves: [], ply: 0, run: null, name: null};
let runTimer = null;
let currentView = 'play';

// A line chart; y2Title gives it a second axis on the right (series with
// yAxisID 'y2'), for a quantity of other units.
function lineChart(id, title, xTitle, yTitle, y2Title) {
  const scales = {x: {type: 'linear', title: {display: true, text: xTitle}}, y: {title: {display: true, text: yTitle}}};
  if (y2Title) scales.y2 = {position: 'right', title: {display: true, text: y2Title}, grid: {drawOnChartArea: false}};
  return new Chart($(id), {
    type: 'line',
    data: {datasets: []},
    options: {
      animation: false, maintainAspectRatio: false, parsing: false, normalized: true,
      plugins: {title: {display: true, text: title}, legend: {labels: {boxWidth: 12}}},
      scales,
    },
  });
}

function series(label, points, color, extra = {}) {
  return {label, data: points, borderColor: color, backgroundColor: color, pointRadius: 2, borderWidth: 1.5, ...extra};
}

function ensureCharts() {
  if (charts.loss) return;
  charts.loss = lineChart('chart-loss', 'Losses', 'step', 'loss');
  charts.eloStep = lineChart('chart-elo-step', 'Elo against steps (95% interval)', 'step', 'Elo');
  charts.eloHours = lineChart('chart-elo-hours', 'Elo against hours (95% interval)', 'hours', 'Elo');
  charts.selfplay = lineChart('chart-selfplay', 'Self-play per hour', 'hours', 'games per hour', 'positions per hour');
}

function eloSeries(points, x) {
  const mid = points.map((p) => ({x: p[x], y: p.elo}));
  const up = points.map((p) => ({x: p[x], y: p.elo + p.elo_ci95}));
  const down = points.map((p) => ({x: p[x], y: p.elo - p.elo_ci95}));
  return [series('net', mid, '#2a6fdb'),
    series('+95%', up, '#9bb8ec', {borderDash: [4, 4], pointRadius: 0}),
    series('-95%', down, '#9bb8ec', {borderDash: [4, 4], pointRadius: 0})];
}

// Horizontal lines at the ladder players' ratings across [x0, x1].
function ladderLines(ratings, x0, x1) {
  const colors = ['#c0392b', '#d35400', '#8e44ad', '#16a085', '#7f8c8d'];
  return ratings.filter((r) => !r.name.startsWith('step ')).map((r, i) =>
    series(r.name, [{x: x0, y: r.elo}, {x: x1, y: r.elo}], colors[i % colors.length], {borderDash: [2, 2], pointRadius: 0}));
}

// The metrics of the run shown, read a piece at a time: each poll asks
// for what the run wrote since the last one (the server answers at most a
// bounded piece, with `more` while the file holds more) and appends it; a
// file replaced since (`reset`: another file, or a shorter one) is read
// again from its start.
const metrics = {run: null, next: 0, file: '', events: [], reading: false};

// Reads the run's metrics up to the end of its file, piece by piece,
// showing how far it got; returns false when another run was chosen, or
// when an earlier poll is still reading (it goes on, and the next poll
// draws), so that no piece is appended twice.
async function catchUpMetrics(index) {
  if (metrics.reading) return false;
  metrics.reading = true;
  try {
    for (;;) {
      const piece = await api(`/api/runs/${index}/metrics?since=${metrics.next}&file=${encodeURIComponent(metrics.file)}`);
      if (metrics.run !== index) return false;
      if (piece.reset) metrics.events = [];
      metrics.events.push(...piece.events);
      Object.assign(metrics, {next: piece.next, file: piece.file});
      $('metrics-progress').textContent = piece.more
        ? `reading the metrics: ${(piece.next / 1e6).toFixed(1)} of ${(piece.size / 1e6).toFixed(1)} MB` : '';
      if (!piece.more) return true;
    }
  } finally {
    metrics.reading = false;
  }
}

async function loadRun() {
  const index = $('run').value;
  if (index === '') return;
  ensureCharts();
  if (metrics.run !== index) Object.assign(metrics, {run: index, next: 0, file: '', events: []});
  if (!await catchUpMetrics(index)) return;  // another run was chosen meanwhile
  const [ratings, checkpoints, games] = await Promise.all([
    api(`/api/runs/${index}/ratings`), api(`/api/runs/${index}/checkpoints`), api(`/api/runs/${index}/games`)]);
  if (metrics.run !== index) return;
  const events = metrics.events;
  const of = (name) => events.filter((e) => e.event === name);
  const train = of('train'), validation = of('validation'), rating = of('rating'), selfplay = of('selfplay');
  charts.loss.data.datasets = [
    series('policy (train)', train.map((e) => ({x: e.step, y: e.policy_loss})), '#2a6fdb'),
    series('value (train)', train.map((e) => ({x: e.step, y: e.value_loss})), '#c0392b'),
    series('policy (validation)', validation.map((e) => ({x: e.step, y: e.policy_loss})), '#7aa5ee', {borderDash: [5, 3]}),
    series('value (validation)', validation.map((e) => ({x: e.step, y: e.value_loss})), '#e08a80', {borderDash: [5, 3]})];
  const steps = rating.map((e) => e.step), hours = rating.map((e) => e.hours);
  charts.eloStep.data.datasets = eloSeries(rating, 'step').concat(
    ladderLines(ratings.ratings, Math.min(0, ...steps), Math.max(1, ...steps)));
  charts.eloHours.data.datasets = eloSeries(rating, 'hours').concat(
    ladderLines(ratings.ratings, 0, Math.max(0.01, ...hours)));
  const timed = selfplay.filter((e) => e.games_per_hour !== undefined && e.time);
  const t0 = events.length ? events[0].time : 0;
  charts.selfplay.data.datasets = [
    series('games', timed.map((e) => ({x: (e.time - t0) / 3600, y: e.games_per_hour})), '#16a085', {yAxisID: 'y'}),
    series('positions', timed.map((e) => ({x: (e.time - t0) / 3600, y: e.positions_per_hour})), '#8e44ad', {yAxisID: 'y2'})];
  for (const chart of Object.values(charts)) chart.update();

  const body = $('ratings').tBodies[0];
  body.textContent = '';
  for (const r of ratings.ratings) {
    const row = body.insertRow();
    for (const v of [r.name, Math.round(r.elo), Math.round(r.ci95), r.games, (100 * r.score).toFixed(1) + '%']) row.insertCell().textContent = v;
  }
  // Checkpoints play where the server has LibTorch; the run's export anywhere.
  const list = $('checkpoints');
  list.textContent = '';
  if (checkpoints.export_player) list.appendChild(linkItem(`the run's export: play it`, () => playCheckpoint(checkpoints.export_player), '#play'));
  if (!checkpoints.playable && checkpoints.checkpoints.length) {
    const note = document.createElement('li');
    note.textContent = 'checkpoints play under loaz-torch serve';
    list.appendChild(note);
  }
  for (const c of checkpoints.checkpoints.slice().reverse()) {
    if (checkpoints.playable) {
      list.appendChild(linkItem(`step ${c.step}: play this one`, () => playCheckpoint(c.player), '#play'));
    } else {
      const li = document.createElement('li');
      li.textContent = `step ${c.step}`;
      list.appendChild(li);
    }
  }
  const gameList = $('games');
  gameList.textContent = '';
  for (const g of games.games) {
    const href = `#runs?run=${index}&game=${encodeURIComponent(g.name)}`;
    gameList.appendChild(linkItem(`${g.kind}: ${g.name.split('/').pop()}`, () => {
      history.pushState(null, '', href);  // opening a game is a step the back button undoes
      openGame(index, g.name).catch(showError);
    }, href));
  }
  $('chart-loss').dataset.points = String(train.length + validation.length);
  $('chart-loss').dataset.events = String(events.length);
}

// A list item with a link that a click or the keyboard (Tab, Enter) follows;
// `href` is the address it leads to (a new tab or a copied link opens it).
function linkItem(text, action, href) {
  const li = document.createElement('li');
  const link = document.createElement('a');
  link.href = href;
  link.textContent = text;
  link.addEventListener('click', (event) => { event.preventDefault(); action(); });
  li.appendChild(link);
  return li;
}

function playCheckpoint(name) {
  const select = $('player');
  if (![...select.options].some((o) => o.value === name)) select.add(new Option(name, name));
  select.value = name;
  showView('play');
  newGame().catch(showError);
}

async function openGame(index, name) {
  const g = await api(`/api/runs/${index}/game?name=${encodeURIComponent(name)}`);
  Object.assign(viewer, {fens: g.fens, moves: g.moves, ply: 0, run: index, name});
  $('viewer-title').textContent = `${g.tags.Black || '?'} - ${g.tags.White || '?'}: ${g.result} (${g.reason})`;
  drawViewer();
}

function drawViewer() {
  const move = viewer.ply > 0 ? viewer.moves[viewer.ply - 1] : null;
  drawBoard($('viewer'), viewer.fens[viewer.ply], {last: move ? [move.slice(0, 2), move.slice(3, 5)] : []});
  $('viewer-ply').textContent = `${viewer.ply}/${viewer.moves.length}${move ? ' ' + move : ''}`;
  writeAddress();
}

function stepViewer(to) {
  if (!viewer.fens.length) return;
  viewer.ply = Math.max(0, Math.min(viewer.moves.length, to));
  drawViewer();
}

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
