// The page of `loaz serve` in a real browser: headless Chromium (Debian's),
// driven by puppeteer-core. Plays a move by clicking a piece and a target,
// waits for the engine's answer, checks the move list and the board, opens
// the Runs view and checks that a chart drew, and saves a screenshot of
// each view. Prints the time from the click to the engine's move.
// usage: node browser_test.mjs URL SCREENSHOT_DIR
import puppeteer from 'puppeteer-core';
import fs from 'node:fs';

const [url, outDir] = process.argv.slice(2);
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
fs.mkdirSync(outDir, {recursive: true});

function check(condition, message) {
  if (!condition) throw new Error(message);
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
  await page.waitForFunction(() => document.querySelectorAll('#moves li').length === 1 &&
    document.querySelector('#moves li').textContent.split(' ').length === 2 &&
    document.getElementById('status').dataset.state === 'waiting', {timeout: 60000});
  const latency = (Date.now() - clicked) / 1000;
  const moves = await page.$eval('#moves li', (li) => li.textContent);
  check(moves.startsWith('b1-b3 '), `move list: ${moves}`);
  check(await page.$('#board circle.black[data-square="b3"]') !== null, 'no black piece on b3');
  check(await page.$('#board circle[data-square="b1"]') === null, 'b1 is not empty');
  const reply = moves.split(' ')[1];
  check(await page.$(`#board circle.white[data-square="${reply.slice(3, 5)}"]`) !== null, `no white piece after ${reply}`);
  const analysis = await page.$eval('#analysis', (e) => e.textContent);
  check(analysis.includes('pv'), `no analysis: ${analysis}`);
  await page.screenshot({path: `${outDir}/play.png`});

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
  await page.click('#games a');
  await page.waitForFunction(() => document.getElementById('viewer-ply').textContent.startsWith('0/'));
  await page.click('#viewer-next');
  const ply = await page.$eval('#viewer-ply', (e) => e.textContent);
  check(ply.startsWith('1/'), `viewer: ${ply}`);
  await page.screenshot({path: `${outDir}/runs.png`, fullPage: true});
  check(errors.length === 0, `page errors: ${errors.join('; ')}`);
  console.log(`browser test passed: click to engine move ${latency.toFixed(2)} s (${reply})`);
} finally {
  await browser.close();
}
