// The page of `loaz serve` in a real browser: headless Chromium (Debian's),
// driven by puppeteer-core. Plays a move by clicking a piece and a target,
// waits for the engine's answer, checks the move list and the board; then
// analyses with the net: the evaluation bar and the arrows change while the
// search runs, a click in the principal variation goes there, two steps
// back (the first one's reply arriving last) show the right position and
// another move there makes a branch; a reload and a step to Runs and back
// (the back button) return to that line at that ply (the page's address
// holds it); opens the Runs view, checks that a chart drew and that lines
// the run writes meanwhile are appended without a reload, and that a copied
// link opens a game in the viewer at its ply; saves a screenshot of each
// view. Prints the time from the click
// to the engine's move.
// usage: node browser_test.mjs URL SCREENSHOT_DIR METRICS_FILE
import puppeteer from 'puppeteer-core';
import fs from 'node:fs';

const [url, outDir, metricsFile] = process.argv.slice(2);
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
fs.mkdirSync(outDir, {recursive: true});

function check(condition, message) {
  if (!condition) throw new Error(message);
}

// Clicks the element of a selector in one step inside the page: the board
// and the analysis are redrawn as the search reports, which would detach an
// element found in one step and clicked in the next.
async function tap(page, selector) {
  const found = await page.evaluate((s) => {
    const e = document.querySelector(s);
    if (e) e.dispatchEvent(new MouseEvent('click', {bubbles: true}));
    return e !== null;
  }, selector);
  check(found, `nothing to click at ${selector}`);
}

const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage();
  await page.setViewport({width: 1280, height: 900});
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(url, {waitUntil: 'networkidle0'});

  // Play: the human has Black; b1-b3, then the engine answers.
  await page.waitForSelector('#board circle[data-square="b1"]');
  check(await page.$eval('#status', (e) => e.dataset.state) === 'waiting', 'the page is not waiting for a move');
  await page.click('#board circle[data-square="b1"]');
  const targets = await page.$$eval('#board rect.target', (rects) => rects.map((r) => r.dataset.square));
  check(targets.includes('b3') && targets.length === 3, `targets of b1: ${targets}`);
  const clicked = Date.now();
  await page.click('#board rect[data-square="b3"]');
  const lineOf = () => page.$$eval('#moves .move', (b) => b.map((e) => e.textContent));
  await page.waitForFunction(() => document.querySelectorAll('#moves .move').length === 2 &&
    document.getElementById('status').dataset.state === 'waiting', {timeout: 60000});
  const latency = (Date.now() - clicked) / 1000;
  const moves = await lineOf();
  check(moves[0] === 'b1-b3', `move list: ${moves}`);
  check(await page.$('#board circle.black[data-square="b3"]') !== null, 'no black piece on b3');
  check(await page.$('#board circle[data-square="b1"]') === null, 'b1 is not empty');
  const reply = moves[1];
  check(await page.$(`#board circle.white[data-square="${reply.slice(3, 5)}"]`) !== null, `no white piece after ${reply}`);
  const depth = await page.$eval('#analysis', (e) => e.textContent);
  check(depth.includes('depth'), `no analysis of the engine's move: ${depth}`);

  // Analyse with the net: while it runs, the bar and the arrows change.
  await page.select('#player', 'mcts:threads=1');
  await page.click('#analyse');
  const state = () => page.evaluate(() => JSON.stringify({
    wdl: document.getElementById('eval-bar').dataset.wdl || '',
    arrows: [...document.querySelectorAll('#board line.arrow')].map((l) => l.dataset.move + ':' + l.dataset.share),
    running: document.getElementById('status').dataset.state === 'analysing'}));
  const seen = new Set();
  for (let tries = 0; tries < 200 && seen.size < 3; tries++) {
    const s = JSON.parse(await state());
    if (s.running && s.wdl && s.arrows.length) seen.add(s.wdl + ' ' + s.arrows.join(','));
    await new Promise((r) => setTimeout(r, 100));
  }
  check(seen.size >= 3, `the bar and arrows did not change while analysing: ${[...seen].join(' | ')}`);
  await page.screenshot({path: `${outDir}/analysis.png`});
  await page.click('#analyse');  // stop
  await page.waitForFunction(() => document.getElementById('status').dataset.state === 'waiting', {timeout: 10000});
  const pv = await page.$$eval('#pv .move', (b) => b.map((e) => e.textContent));
  check(pv.length >= 2, `principal variation: ${pv}`);
  // Its second move: the position two plies on.
  await tap(page, '#pv .move:nth-child(2)');
  await page.waitForFunction(() => document.getElementById('nav-ply').textContent === '4/4');
  const line = await lineOf();
  check(line[2] === pv[0] && line[3] === pv[1], `after the click in the pv: ${line}`);
  // Two steps back with the keyboard, the first step's reply held back so
  // that it comes last: the board shows the second step's position.
  await page.evaluate(() => {
    const send = window.fetch;
    let held = false;
    window.fetch = (path, init) => {
      if (held || !String(path).includes('/api/position')) return send(path, init);
      held = true;
      return new Promise((resolve) => setTimeout(resolve, 700)).then(() => send(path, init));
    };
    document.activeElement.blur();
  });
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => document.getElementById('nav-ply').textContent === '2/4');
  await new Promise((r) => setTimeout(r, 1000));
  await page.waitForNetworkIdle({idleTime: 200});
  const shownSide = await page.evaluate(() => game.status.side);
  check(shownSide === 'black', `after two steps back the board shows ${shownSide} to move, not black`);
  // Then another move there: a branch.
  await page.select('#colour', 'both');  // the engine only analyses
  await page.waitForNetworkIdle({idleTime: 200});  // the position it asks for again
  await page.waitForFunction(() => document.getElementById('status').dataset.state === 'waiting');
  const legal = await page.evaluate(() => game.status.legal.filter((m) => m !== game.line[2]));
  const branch = legal[0];
  await tap(page, `#board circle[data-square="${branch.slice(0, 2)}"]`);
  await page.waitForSelector('#board rect.target');
  await tap(page, `#board rect[data-square="${branch.slice(3, 5)}"]`);
  await page.waitForFunction(() => document.getElementById('nav-ply').textContent === '3/3');
  const branched = await lineOf();
  check(branched.length === 3 && branched[2] === branch && branched[1] === reply, `the branch: ${branched}`);
  await page.screenshot({path: `${outDir}/play.png`});
  // The address holds the game: a reload shows the same line at the same
  // ply, and a step to Runs and back returns to it.
  await page.click('#nav-prev');
  await page.waitForFunction(() => document.getElementById('nav-ply').textContent === '2/3');
  check(/^#play\?moves=/.test(await page.evaluate(() => location.hash)), 'the address does not hold the game');
  await page.reload({waitUntil: 'networkidle0'});
  await page.waitForFunction(() => document.getElementById('nav-ply').textContent === '2/3');
  const reloaded = await lineOf();
  check(reloaded.join(' ') === branched.join(' '), `after a reload the line is ${reloaded}, not ${branched}`);
  await page.click('#tab-runs');
  await page.waitForFunction(() => !document.getElementById('view-runs').classList.contains('hidden'));
  await page.goBack();
  await page.waitForFunction(() => !document.getElementById('view-play').classList.contains('hidden'));
  await page.waitForFunction(() => document.getElementById('nav-ply').textContent === '2/3');
  const back = await lineOf();
  check(back.join(' ') === branched.join(' '), `after the back button the line is ${back}, not ${branched}`);

  // Runs: a chart draws the run's metrics.
  await page.click('#tab-runs');
  await page.waitForFunction(() => Number(document.getElementById('chart-loss').dataset.points || 0) > 0, {timeout: 20000});
  const drawn = await page.evaluate(() => {
    const chart = Chart.getChart('chart-loss');
    return chart.data.datasets.reduce((n, d) => n + d.data.length, 0);
  });
  check(drawn > 0, 'the loss chart holds no points');
  const rows = await page.$$eval('#ratings tbody tr', (r) => r.length);
  check(rows > 0, 'no ratings table');
  // The run writes on: the page appends the new lines (asked for from the
  // offset it has) without reading the run again or reloading.
  await page.evaluate(() => { window.notReloaded = true; });
  const before = Number(await page.$eval('#chart-loss', (e) => e.dataset.events));
  const asked = [];
  page.on('request', (r) => { if (r.url().includes('/metrics')) asked.push(r.url()); });
  fs.appendFileSync(metricsFile, '{"event":"train","step":700,"policy_loss":3.3,"value_loss":0.5,"time":1500}\n');
  await page.waitForFunction((n) => Number(document.getElementById('chart-loss').dataset.events) === n + 1, {timeout: 20000}, before);
  check(await page.evaluate(() => window.notReloaded === true), 'the page reloaded');
  check(asked.length > 0 && asked.every((u) => !u.includes('since=0&')), `metrics asked for: ${asked}`);
  const keyboard = await page.$$eval('#games a', (links) => links.every((a) => a.getAttribute('href') !== null));
  check(keyboard, 'a game link has no href (the keyboard cannot reach it)');
  await page.click('#games a');
  await page.waitForFunction(() => document.getElementById('viewer-ply').textContent.startsWith('0/'));
  await page.click('#viewer-next');
  const ply = await page.$eval('#viewer-ply', (e) => e.textContent);
  check(ply.startsWith('1/'), `viewer: ${ply}`);
  // A copied link opens the run's game at its ply.
  const link = await page.evaluate(() => location.href);
  check(link.includes('#runs?run=0&game='), `the address of the viewer: ${link}`);
  await page.goto('about:blank');
  await page.goto(link, {waitUntil: 'networkidle0'});
  await page.waitForFunction(() => document.getElementById('viewer-ply').textContent.startsWith('1/'));
  await page.screenshot({path: `${outDir}/runs.png`, fullPage: true});
  check(errors.length === 0, `page errors: ${errors.join('; ')}`);
  console.log(`browser test passed: click to engine move ${latency.toFixed(2)} s (${reply})`);
} finally {
  await browser.close();
}
