// The page's Runs view: a run's charts, ratings, checkpoints and games
// (board.js draws the games, app.js shows the view).
'use strict';

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
  const [ratings, checkpoints, games, workers] = await Promise.all([
    api(`/api/runs/${index}/ratings`), api(`/api/runs/${index}/checkpoints`), api(`/api/runs/${index}/games`),
    api(`/api/runs/${index}/workers`)]);
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
  $('ratings-damaged').textContent = ratings.damage ? `damaged: ${ratings.damage}` : '';
  $('ratings-damaged').classList.toggle('hidden', !ratings.damage);
  // The trainer and every self-play process that has played for the run
  // (docs/CLUSTER.md), and any of their files that is damaged.
  const workerBody = $('workers').tBodies[0];
  workerBody.textContent = '';
  const beats = (workers.trainer ? [workers.trainer] : []).concat(workers.workers);
  for (const w of beats) {
    const row = workerBody.insertRow();
    row.className = w.liveness;
    const trainer = w === workers.trainer;
    for (const v of [w.name, w.host, w.job || '-', w.liveness, trainer ? '-' : w.games,
      trainer ? '-' : Math.round(w.positions_per_hour), w.net_step,
      `${Math.round(w.seconds_since_beat)} s`]) row.insertCell().textContent = v;
  }
  $('workers-none').classList.toggle('hidden', beats.length > 0);
  $('workers-damaged').textContent = (workers.damaged || []).map((line) => `damaged: ${line}`).join('\n');
  $('workers-damaged').classList.toggle('hidden', !(workers.damaged || []).length);
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
  select.value = select.dataset.wanted = name;
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
