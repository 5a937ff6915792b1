// The page of `loaz serve`: Play (a board, the engine answers) and Runs
// (charts, ratings, checkpoints and games of the runs the server shows).
// Everything goes through the JSON API of docs/SERVE.md.
'use strict';

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';
const FILES = 'abcdefgh';
const SQUARE = 50, MARGIN = 20;

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

// ---- Play -------------------------------------------------------------------

const game = {
  start: null,      // the start position string (null: the rules' start)
  moves: [],        // moves played, e.g. "b1-b3"
  status: null,     // the last /api/position or /api/genmove status
  selected: null,   // the square of the piece picked
  flipped: false,
  thinking: false,
  generation: 0,    // bumped by a new game, so that a late engine answer is dropped
  client: Math.random().toString(36).slice(2, 12),
};

function rules() { return {simultaneous: $('simultaneous').value, start: $('start').value}; }
function request() { return {fen: game.start, moves: game.moves, rules: rules()}; }
function humanColour() { return $('colour').value; }

function limitFields() {
  const kind = $('limit-kind').value, value = Number($('limit').value);
  if (kind === 'seconds') return {seconds: value};
  if (kind === 'playouts') return {playouts: Math.round(value)};
  return {};
}

function render() {
  const s = game.status;
  if (!s) return;
  const mine = !s.over && !game.thinking && s.side === humanColour() ? s.side[0] : null;
  const targets = game.selected ? s.legal.filter((m) => m.startsWith(game.selected)).map((m) => m.slice(3, 5)) : [];
  const last = game.moves.length ? [game.moves[game.moves.length - 1].slice(0, 2), game.moves[game.moves.length - 1].slice(3, 5)] : [];
  drawBoard($('board'), s.fen, {flipped: game.flipped, selected: game.selected, targets, last, mine, onSquare: clickSquare});
  const list = $('moves');
  list.textContent = '';
  for (let i = 0; i < game.moves.length; i += 2) {
    const li = document.createElement('li');
    li.textContent = game.moves.slice(i, i + 2).join(' ');
    list.appendChild(li);
  }
  list.scrollTop = list.scrollHeight;
  let text;
  if (s.over) text = `Game over: ${s.result === 'draw' ? 'a draw' : s.result + ' wins'} (${s.reason})`;
  else if (game.thinking) text = `${$('player').value} is thinking...`;
  else text = `${s.side} to move${s.side === humanColour() ? ' (you)' : ''}`;
  $('status').textContent = text;
  $('status').dataset.state = s.over ? 'over' : game.thinking ? 'thinking' : 'waiting';
}

function showError(error) { $('status').textContent = 'Error: ' + error.message; }

async function refresh() {
  game.status = await api('/api/position', request());
  render();
  maybeEngineMove();
}

async function maybeEngineMove() {
  const s = game.status;
  if (!s || s.over || game.thinking || s.side === humanColour()) return;
  game.thinking = true;
  render();
  const generation = game.generation;
  try {
    const reply = await api('/api/genmove', {...request(), player: $('player').value, client: game.client, ...limitFields()});
    if (generation !== game.generation) return;
    game.moves.push(reply.move);
    game.status = reply.status;
    showAnalysis(reply.analysis);
  } catch (error) {
    if (generation === game.generation) showError(error);
  } finally {
    if (generation === game.generation) { game.thinking = false; render(); }
  }
}

function showAnalysis(a) {
  const box = $('analysis');
  box.textContent = '';
  const lines = [`${a.player}: ${a.seconds.toFixed(2)} s`];
  if (a.nodes !== undefined) lines.push(`${a.nodes} ${a.top ? 'playouts' : 'nodes'}, ${Math.round(a.nodes_per_second)}/s`);
  if (a.wdl) lines.push(`value ${a.value.toFixed(3)}  win ${(100 * a.wdl[0]).toFixed(1)}%  draw ${(100 * a.wdl[1]).toFixed(1)}%  loss ${(100 * a.wdl[2]).toFixed(1)}%`);
  if (a.depth !== undefined) lines.push(`depth ${a.depth}  score ${a.score}`);
  if (a.pv) lines.push('pv ' + a.pv.join(' '));
  const pre = document.createElement('div');
  pre.textContent = lines.join('\n');
  box.appendChild(pre);
  if (a.top) {
    const table = document.createElement('table');
    table.innerHTML = '<tr><th>move</th><th>visits</th><th>prior</th><th>q</th></tr>';
    for (const c of a.top) {
      const row = table.insertRow();
      for (const v of [c.move, c.visits, c.prior.toFixed(3), c.q.toFixed(3)]) row.insertCell().textContent = v;
    }
    box.appendChild(table);
  }
}

function clickSquare(name) {
  const s = game.status;
  if (!s || s.over || game.thinking || s.side !== humanColour()) return;
  const pieces = piecesOf(s.fen);
  if (game.selected) {
    const move = s.legal.find((m) => m.startsWith(game.selected) && m.slice(3, 5) === name);
    if (move) {
      game.selected = null;
      game.moves.push(move);
      refresh().catch(showError);
      return;
    }
  }
  game.selected = pieces[name] === s.side[0] && s.legal.some((m) => m.startsWith(name)) ? name : null;
  render();
}

async function newGame(start = null, moves = []) {
  game.generation += 1;
  if (game.thinking) api('/api/stop', {client: game.client}).catch(() => {});
  game.thinking = false;
  game.start = start;
  game.moves = moves;
  game.selected = null;
  $('analysis').textContent = '';
  await refresh();
}

async function undo() {
  if (game.thinking) return;
  // Back to the human's turn: the engine's reply and the human's move.
  do game.moves.pop(); while (game.moves.length && (await api('/api/position', request())).side !== humanColour());
  await newGame(game.start, game.moves);
}

async function loadRecord() {
  const data = await api('/api/record/read', {text: $('record').value});
  $('simultaneous').value = data.rules.simultaneous;
  $('start').value = data.rules.start;
  await newGame(data.fen, data.moves);
}

async function copyRecord() {
  const human = humanColour();
  const data = await api('/api/record/write', {...request(), black: human === 'black' ? 'you' : $('player').value,
    white: human === 'white' ? 'you' : $('player').value});
  $('record').value = data.text;
  if (navigator.clipboard) navigator.clipboard.writeText(data.text).catch(() => {});
}

// ---- Runs -------------------------------------------------------------------

const charts = {};
const viewer = {fens: [], moves: [], ply: 0};
let runTimer = null;

function lineChart(id, title, xTitle, yTitle) {
  return new Chart($(id), {
    type: 'line',
    data: {datasets: []},
    options: {
      animation: false, maintainAspectRatio: false, parsing: false, normalized: true,
      plugins: {title: {display: true, text: title}, legend: {labels: {boxWidth: 12}}},
      scales: {x: {type: 'linear', title: {display: true, text: xTitle}}, y: {title: {display: true, text: yTitle}}},
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
  charts.selfplay = lineChart('chart-selfplay', 'Self-play per hour', 'hours', 'per hour');
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

async function loadRun() {
  const index = $('run').value;
  if (index === '') return;
  ensureCharts();
  const [metrics, ratings, checkpoints, games] = await Promise.all([
    api(`/api/runs/${index}/metrics`), api(`/api/runs/${index}/ratings`),
    api(`/api/runs/${index}/checkpoints`), api(`/api/runs/${index}/games`)]);
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
    series('games', timed.map((e) => ({x: (e.time - t0) / 3600, y: e.games_per_hour})), '#16a085'),
    series('positions', timed.map((e) => ({x: (e.time - t0) / 3600, y: e.positions_per_hour})), '#8e44ad')];
  for (const chart of Object.values(charts)) chart.update();

  const body = $('ratings').tBodies[0];
  body.textContent = '';
  for (const r of ratings.ratings) {
    const row = body.insertRow();
    for (const v of [r.name, Math.round(r.elo), Math.round(r.ci95), r.games, (100 * r.score).toFixed(1) + '%']) row.insertCell().textContent = v;
  }
  const list = $('checkpoints');
  list.textContent = '';
  for (const c of checkpoints.checkpoints.slice().reverse()) {
    const li = document.createElement('li');
    const link = document.createElement('a');
    link.textContent = `step ${c.step}: play this one`;
    link.addEventListener('click', () => playCheckpoint(c.player));
    li.appendChild(link);
    list.appendChild(li);
  }
  const gameList = $('games');
  gameList.textContent = '';
  for (const g of games.games) {
    const li = document.createElement('li');
    const link = document.createElement('a');
    link.textContent = `${g.kind}: ${g.name.split('/').pop()}`;
    link.addEventListener('click', () => openGame(index, g.name).catch(showError));
    li.appendChild(link);
    gameList.appendChild(li);
  }
  $('chart-loss').dataset.points = String(train.length + validation.length);
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
  viewer.fens = g.fens;
  viewer.moves = g.moves;
  viewer.ply = 0;
  $('viewer-title').textContent = `${g.tags.Black || '?'} - ${g.tags.White || '?'}: ${g.result} (${g.reason})`;
  drawViewer();
}

function drawViewer() {
  const move = viewer.ply > 0 ? viewer.moves[viewer.ply - 1] : null;
  drawBoard($('viewer'), viewer.fens[viewer.ply], {last: move ? [move.slice(0, 2), move.slice(3, 5)] : []});
  $('viewer-ply').textContent = `${viewer.ply}/${viewer.moves.length}${move ? ' ' + move : ''}`;
}

function stepViewer(to) {
  if (!viewer.fens.length) return;
  viewer.ply = Math.max(0, Math.min(viewer.moves.length, to));
  drawViewer();
}

// ---- views and start-up -----------------------------------------------------

function showView(name) {
  for (const view of ['play', 'runs']) {
    $('view-' + view).classList.toggle('hidden', view !== name);
    $('tab-' + view).classList.toggle('active', view === name);
  }
  clearInterval(runTimer);
  if (name === 'runs') {
    loadRun().catch(showError);
    runTimer = setInterval(() => loadRun().catch(() => {}), 5000);
  }
}

async function start() {
  const info = await api('/api/info');
  for (const p of info.players) $('player').add(new Option(p, p));
  $('player').value = info.default_player;
  for (const r of info.runs) $('run').add(new Option(r.name, r.index));
  $('run-empty').classList.toggle('hidden', info.runs.length > 0);
  for (const tab of document.querySelectorAll('.tab')) tab.addEventListener('click', () => showView(tab.dataset.view));
  $('run').addEventListener('change', () => loadRun().catch(showError));
  $('new-game').addEventListener('click', () => newGame().catch(showError));
  $('undo').addEventListener('click', () => undo().catch(showError));
  $('flip').addEventListener('click', () => { game.flipped = !game.flipped; render(); });
  $('colour').addEventListener('change', () => newGame(game.start, game.moves).catch(showError));
  for (const id of ['simultaneous', 'start']) $(id).addEventListener('change', () => newGame().catch(showError));
  $('set-position').addEventListener('click', () => newGame($('fen').value.trim() || null).catch(showError));
  $('load-record').addEventListener('click', () => loadRecord().catch(showError));
  $('copy-record').addEventListener('click', () => copyRecord().catch(showError));
  $('limit-kind').addEventListener('change', () => {
    const kind = $('limit-kind').value;
    $('limit').value = kind === 'playouts' ? 400 : 1;
    $('limit').disabled = kind === 'default';
  });
  $('viewer-first').addEventListener('click', () => stepViewer(0));
  $('viewer-prev').addEventListener('click', () => stepViewer(viewer.ply - 1));
  $('viewer-next').addEventListener('click', () => stepViewer(viewer.ply + 1));
  $('viewer-last').addEventListener('click', () => stepViewer(viewer.moves.length));
  await newGame();
}

start().catch(showError);
