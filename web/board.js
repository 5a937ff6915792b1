// The page of `loaz serve` (docs/SERVE.md), first of its scripts: the
// JSON API's client and the board's drawing, which play.js and runs.js
// share. The page loads board.js, play.js, runs.js and app.js in order;
// their top-level names share one scope.
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

// Returns the board's size of a position string: its number of ranks (6, 7
// or 8; docs/RULES.md, Board sizes).
function sizeOf(fen) { return fen.split(' ')[0].split('/').length; }

// Returns {square name: 'b' or 'w'} of a position string.
function piecesOf(fen) {
  const pieces = {};
  const ranks = fen.split(' ')[0].split('/');
  ranks.forEach((row, i) => {
    let file = 0;
    for (const ch of row) {
      if (ch >= '1' && ch <= '8') file += Number(ch);
      else { pieces[FILES[file] + (ranks.length - i)] = ch.toLowerCase(); file += 1; }
    }
  });
  return pieces;
}

// Returns the centre of square `name` on a board of n drawn by drawBoard.
function squareCentre(name, n, flipped) {
  const file = FILES.indexOf(name[0]), rank = Number(name[1]) - 1;
  const f = flipped ? n - 1 - file : file, r = flipped ? rank : n - 1 - rank;
  return [MARGIN + f * SQUARE + SQUARE / 2, r * SQUARE + SQUARE / 2];
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
  const pieces = piecesOf(fen), n = sizeOf(fen);
  svg.setAttribute('viewBox', `0 0 ${MARGIN + n * SQUARE} ${n * SQUARE + MARGIN}`);
  const targets = new Set(options.targets || []);
  const last = new Set(options.last || []);
  for (let r = 0; r < n; r++) {
    for (let f = 0; f < n; f++) {
      const file = options.flipped ? n - 1 - f : f, rank = options.flipped ? r : n - 1 - r;
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
  for (let i = 0; i < n; i++) {
    const file = options.flipped ? n - 1 - i : i, rank = options.flipped ? i + 1 : n - i;
    element('text', {x: MARGIN + i * SQUARE + SQUARE / 2 - 4, y: n * SQUARE + 15, class: 'coord'}, svg).textContent = FILES[file];
    element('text', {x: 4, y: i * SQUARE + SQUARE / 2 + 4, class: 'coord'}, svg).textContent = rank;
  }
}
