#!/usr/bin/python3
"""The page of `loaz serve` in a real browser: Debian's headless Chromium,
driven through the W3C WebDriver standard (Debian's chromedriver and
python3-selenium). Plays a move by clicking a piece and a target, waits for
the engine's answer, checks the move list and the board; then analyses with
the net: the evaluation bar and the arrows change while the search runs, a
click in the principal variation goes there, two steps back (the first
one's reply arriving last) show the right position and another move there
makes a branch; a reload and a step to Runs and back (the back button)
return to that line at that ply (the page's address holds it), and a
position set while the page still reads the address stays; opens the
Runs view, checks that a chart drew and that lines the run writes meanwhile
are appended without a reload, and that a copied link opens a game in the
viewer at its ply; opens a table of addresses (the page's own, an older
or mistyped one), each in a fresh load, and checks that the board and the
status draw and a bad part is named; saves a screenshot of each view.
Prints the time from the click to the engine's move.

usage: browser_test.py URL SCREENSHOT_DIR METRICS_FILE
"""

import json
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def main():
    url, out_dir, metrics_file = sys.argv[1:4]
    os.makedirs(out_dir, exist_ok=True)
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1280,1400"]:
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    errors = []

    def js(script, *args):
        return driver.execute_script(script, *args)

    def wait(condition, timeout=20, what=None):
        """Waits until the JavaScript expression `condition` holds."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if js("return !!(" + condition + ");"):
                return
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what or condition}")

    def collect_errors():
        # Uncaught exceptions of the page (not the API's error replies).
        for entry in driver.get_log("browser"):
            if entry["level"] == "SEVERE" and "Uncaught" in entry["message"]:
                errors.append(entry["message"])

    def tap(selector):
        # Clicks in one step inside the page: the board and the analysis are
        # redrawn as the search reports, which would detach an element found
        # in one step and clicked in the next.
        found = js("const e = document.querySelector(arguments[0]);"
                   "if (e) e.dispatchEvent(new MouseEvent('click', {bubbles: true}));"
                   "return e !== null;", selector)
        check(found, f"nothing to click at {selector}")

    def text(selector):
        return js("return document.querySelector(arguments[0]).textContent;", selector)

    def line_of():
        return js("return [...document.querySelectorAll('#moves .move')].map((e) => e.textContent);")

    def exists(selector):
        return js("return document.querySelector(arguments[0]) !== null;", selector)

    def ply_is(value):
        wait(f"document.getElementById('nav-ply').textContent === '{value}'", what=f"ply {value}")

    try:
        driver.get(url)
        # Play: the human has Black; b1-b3, then the engine answers.
        wait("document.querySelector('#board circle[data-square=\"b1\"]')")
        wait("document.getElementById('status').dataset.state === 'waiting'", what="the page waiting for a move")
        tap('#board circle[data-square="b1"]')
        targets = js("return [...document.querySelectorAll('#board rect.target')].map((r) => r.dataset.square);")
        check("b3" in targets and len(targets) == 3, f"targets of b1: {targets}")
        clicked = time.time()
        tap('#board rect[data-square="b3"]')
        wait("document.querySelectorAll('#moves .move').length === 2 &&"
             " document.getElementById('status').dataset.state === 'waiting'", timeout=60, what="the engine's move")
        latency = time.time() - clicked
        moves = line_of()
        check(moves[0] == "b1-b3", f"move list: {moves}")
        check(exists('#board circle.black[data-square="b3"]'), "no black piece on b3")
        check(not exists('#board circle[data-square="b1"]'), "b1 is not empty")
        reply = moves[1]
        check(exists(f'#board circle.white[data-square="{reply[3:5]}"]'), f"no white piece after {reply}")
        check("depth" in text("#analysis"), f"no analysis of the engine's move: {text('#analysis')}")

        # Analyse with the net: while it runs, the bar and the arrows change.
        Select(driver.find_element(By.ID, "player")).select_by_value("mcts:threads=1")
        driver.find_element(By.ID, "analyse").click()
        seen = set()
        for _ in range(200):
            s = json.loads(js("return JSON.stringify({"
                              "wdl: document.getElementById('eval-bar').dataset.wdl || '',"
                              "arrows: [...document.querySelectorAll('#board line.arrow')]"
                              ".map((l) => l.dataset.move + ':' + l.dataset.share),"
                              "running: document.getElementById('status').dataset.state === 'analysing'});"))
            if s["running"] and s["wdl"] and s["arrows"]:
                seen.add(s["wdl"] + " " + ",".join(s["arrows"]))
            if len(seen) >= 3:
                break
            time.sleep(0.1)
        check(len(seen) >= 3, f"the bar and arrows did not change while analysing: {' | '.join(seen)}")
        driver.save_screenshot(f"{out_dir}/analysis.png")
        driver.find_element(By.ID, "analyse").click()  # stop
        wait("document.getElementById('status').dataset.state === 'waiting'", timeout=10, what="the analysis to stop")
        pv = js("return [...document.querySelectorAll('#pv .move')].map((e) => e.textContent);")
        check(len(pv) >= 2, f"principal variation: {pv}")
        # Its second move: the position two plies on.
        tap("#pv .move:nth-child(2)")
        ply_is("4/4")
        line = line_of()
        check(line[2] == pv[0] and line[3] == pv[1], f"after the click in the pv: {line}")

        # Two steps back, the first one's position reply held back so that it
        # arrives after the second's: the board shows the second step's.
        js("""const send = window.fetch;
              let held = false;
              window.fetch = (path, init) => {
                if (held || !String(path).includes('/api/position')) return send(path, init);
                held = true;
                window.heldLanded = false;
                return new Promise((resolve) => setTimeout(resolve, 700)).then(() => send(path, init)).then((r) => {
                  // Once the page has read the held reply (its continuations
                  // are microtasks, done before the next task), say so.
                  const read = r.json.bind(r);
                  r.json = () => read().then((d) => { setTimeout(() => { window.heldLanded = true; }); return d; });
                  return r;
                });
              };
              document.activeElement.blur();""")
        ActionChains(driver).send_keys(Keys.ARROW_LEFT).send_keys(Keys.ARROW_LEFT).perform()
        ply_is("2/4")
        wait("window.heldLanded === true", timeout=10, what="the held reply to land")
        shown_side = js("return game.status.side;")
        check(shown_side == "black", f"after two steps back the board shows {shown_side} to move, not black")
        # Then another move there: a branch.
        # The change shows the line again: wait for that reply (a new status object).
        js("window.statusBefore = game.status;")
        Select(driver.find_element(By.ID, "colour")).select_by_value("both")  # the engine only analyses
        wait("game.status !== window.statusBefore", what="the position shown again")
        wait("document.getElementById('status').dataset.state === 'waiting'")
        legal = js("return game.status.legal.filter((m) => m !== game.line[2]);")
        branch = legal[0]
        tap(f'#board circle[data-square="{branch[0:2]}"]')
        wait("document.querySelector('#board rect.target')")
        tap(f'#board rect[data-square="{branch[3:5]}"]')
        ply_is("3/3")
        branched = line_of()
        check(len(branched) == 3 and branched[2] == branch and branched[1] == reply, f"the branch: {branched}")
        driver.save_screenshot(f"{out_dir}/play.png")

        # The address holds the game: a reload shows the same line at the
        # same ply, and a step to Runs and back returns to it.
        driver.find_element(By.ID, "nav-prev").click()
        ply_is("2/3")
        check(js("return location.hash;").startswith("#play?moves="), "the address does not hold the game")
        collect_errors()
        driver.refresh()
        ply_is("2/3")
        check(line_of() == branched, f"after a reload the line is {line_of()}, not {branched}")
        driver.find_element(By.ID, "tab-runs").click()
        wait("!document.getElementById('view-runs').classList.contains('hidden')")
        driver.back()
        wait("!document.getElementById('view-play').classList.contains('hidden')")
        ply_is("2/3")
        wait("!applyingAddress", what="the address read")
        check(line_of() == branched, f"after the back button the line is {line_of()}, not {branched}")
        # A position set while the page still reads the address (the
        # server's replies held back 1 s each, so that the page is still reading it
        # when the test looks, however slow the machine) is the one that stays.
        driver.find_element(By.ID, "tab-runs").click()
        wait("!document.getElementById('view-runs').classList.contains('hidden')")
        js("""window.fetchBefore = window.fetch;
              window.fetch = (path, init) => !String(path).includes('/api/position') ? window.fetchBefore(path, init)
                : new Promise((resolve) => setTimeout(resolve, 1000)).then(() => window.fetchBefore(path, init));""")
        driver.back()
        wait("!document.getElementById('view-play').classList.contains('hidden')")
        check(js("return applyingAddress;"), "the address was read before the position was set")
        js("document.getElementById('fen').value = '7w/8/7w/8/8/b7/8/b7 b';")
        driver.find_element(By.ID, "set-position").click()
        wait("!applyingAddress && game.status && game.status.fen === '7w/8/7w/8/8/b7/8/b7 b'", what="the position set")
        js("window.fetch = window.fetchBefore;")
        check(js("return game.line.length;") == 0, f"the position set shows the line {line_of()}")
        hash = js("return decodeURIComponent(location.hash);")
        check("fen=7w/8/7w/8/8/b7/8/b7 b" in hash.replace("+", " "), f"the address {hash} is not the position set")

        # Solve: a position won in one is proven, with its move.
        driver.find_element(By.ID, "solve").click()
        wait("document.getElementById('solve-result').textContent.startsWith('Proven')", what="the solver's result")
        solved = text("#solve-result")
        check(solved.startswith("Proven won for black with a3-b2"), f"the solver's result: {solved!r}")
        # A 6x6 board (docs/RULES.md, Board sizes): its squares and its sixteen pieces.
        Select(driver.find_element(By.ID, "size")).select_by_value("6")
        wait("document.querySelectorAll('#board rect.square').length === 36", what="the 6x6 board")
        pieces = js("return document.querySelectorAll('#board circle').length;")
        check(pieces == 16, f"the 6x6 start shows {pieces} pieces")
        driver.save_screenshot(f"{out_dir}/six.png")
        # The address keeps the board's size: a reload shows the 6x6 board again.
        check("size=6" in js("return location.hash;"), f"the address {js('return location.hash;')} lacks size=6")
        driver.refresh()
        wait("document.querySelectorAll('#board rect.square').length === 36", what="the 6x6 board after a reload")
        offered = js("return [...document.querySelectorAll('#player option')].filter((o) => !o.disabled).length;")
        check(offered == 3, f"{offered} players offered on 6x6 after a reload, not the three")
        # The players offered are those that play the board: the engine
        # with no net named plays 8x8 and 6x6 (a shipped net each), not 7x7.
        Select(driver.find_element(By.ID, "player")).select_by_value("mcts:threads=1")
        option = "document.querySelector('#player option[value=\"mcts:threads=1\"]').disabled"
        check(js(f"return {option};") is False, "the engine is not offered on 6x6")
        Select(driver.find_element(By.ID, "size")).select_by_value("7")
        wait("document.querySelectorAll('#board rect.square').length === 49", what="the 7x7 board")
        check(js(f"return {option};") is True, "the engine is offered on 7x7, where no net ships")
        chosen = js("return document.getElementById('player').value;")
        check(chosen != "mcts:threads=1", f"the 7x7 board keeps {chosen}, which does not play it")
        Select(driver.find_element(By.ID, "size")).select_by_value("8")
        wait("document.querySelectorAll('#board rect.square').length === 64", what="the 8x8 board again")
        chosen = js("return document.getElementById('player').value;")
        check(chosen == "mcts:threads=1", f"back on 8x8 the player is {chosen}, not the one chosen before")

        # Runs: a chart draws the run's metrics.
        driver.find_element(By.ID, "tab-runs").click()
        wait("Number(document.getElementById('chart-loss').dataset.points || 0) > 0", what="the loss chart")
        drawn = js("return Chart.getChart('chart-loss').data.datasets.reduce((n, d) => n + d.data.length, 0);")
        check(drawn > 0, "the loss chart holds no points")
        check(js("return document.querySelectorAll('#ratings tbody tr').length;") > 0, "no ratings table")
        workers = js("return [...document.querySelectorAll('#workers tbody td')].map((td) => td.textContent);")
        check(workers[:4] == ["trainer", "n2", "8", "stale"], f"the trainer's row: {workers}")
        check(workers[8:12] == ["a0", "n1", "7_0", "stale"], f"the self-play processes table: {workers}")
        damaged = js("return document.getElementById('workers-damaged').textContent;")
        check("workers/a1.json: not a heartbeat" in damaged, f"the damaged heartbeat is not named: {damaged!r}")
        # The run writes on: the page appends the new lines (asked for from
        # the offset it has) without reading the run again or reloading.
        js("""window.notReloaded = true;
              window.asked = [];
              const send = window.fetch;
              window.fetch = (path, init) => {
                if (String(path).includes('/metrics')) window.asked.push(String(path));
                return send(path, init);
              };""")
        before = int(js("return document.getElementById('chart-loss').dataset.events;"))
        with open(metrics_file, "a") as f:
            f.write('{"event":"train","step":700,"policy_loss":3.3,"value_loss":0.5,"time":1500}\n')
        wait(f"Number(document.getElementById('chart-loss').dataset.events) === {before + 1}", what="the new line")
        check(js("return window.notReloaded === true;"), "the page reloaded")
        asked = js("return window.asked;")
        check(asked and all("since=0&" not in u for u in asked), f"metrics asked for: {asked}")
        keyboard = js("return [...document.querySelectorAll('#games a')].every((a) => a.getAttribute('href') !== null"
                      " && a.getAttribute('href') !== '#');")
        check(keyboard, "a game link has no address (the keyboard or a new tab cannot follow it)")
        driver.find_element(By.CSS_SELECTOR, "#games a").click()
        wait("document.getElementById('viewer-ply').textContent.startsWith('0/')", what="the viewer")
        driver.find_element(By.ID, "viewer-next").click()
        ply = text("#viewer-ply")
        check(ply.startswith("1/"), f"viewer: {ply}")
        # A copied link opens the run's game at its ply.
        link = js("return location.href;")
        check("#runs?run=0&game=" in link, f"the address of the viewer: {link}")
        collect_errors()
        driver.get("about:blank")
        driver.get(link)
        wait("document.getElementById('viewer-ply').textContent.startsWith('1/')", what="the linked game's ply")
        driver.save_screenshot(f"{out_dir}/runs.png")
        collect_errors()

        # The page at any address, each in a fresh load: its own after a
        # reload, the bare page, an older or mistyped one. The board and the
        # status always draw; a part that cannot be read is named in one line.
        base = url.split("#")[0]
        for address, note in [("#play", ""), ("", ""), ("#play?fen=not-a-position", "position could not be read"),
                              ("#play?moves=b1-b3+zz-zz", "moves stop after 1 of 2"),
                              ("#play?moves=b1-b3&ply=x", "ply 'x' is not a number"),
                              ("#play?size=9", "board size '9' is not 6, 7 or 8"),
                              ("#nosuch?x=1", "no view 'nosuch'"), ("#runs?run=9", "no run 9"), ("#runs", "")]:
            driver.get("about:blank")
            driver.get(base + address)
            if address.startswith("#runs"):
                wait("!document.getElementById('view-runs').classList.contains('hidden')", what=f"Runs at {address!r}")
                wait("document.getElementById('address-note').textContent !== '' || " + str(not note).lower(),
                     what=f"the note at {address!r}")
                got = text("#address-note")
                driver.find_element(By.ID, "tab-play").click()
            wait("document.querySelectorAll('#board circle').length === 24", what=f"the board at {address!r}")
            wait("document.getElementById('status').textContent !== ''", what=f"the status at {address!r}")
            if not address.startswith("#runs"):
                got = text("#address-note")
            check(note in got if note else got == "", f"the note at {address!r}: {got!r}")
        collect_errors()
        check(not errors, f"page errors: {'; '.join(errors)}")
        print(f"browser test passed: click to engine move {latency:.2f} s ({reply})")
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
