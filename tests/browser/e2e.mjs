// End-to-end: kb's pages in real headless Chromium, live (`kb serve`) and static
// (`kb site`, opened from file://). The operator's path: home, search "mooncake", open
// seed 002, see its severity badge and repair log, follow an engine link, back home to
// the grouped lists (silent first), open a setting's page; no console
// errors, no CSP violations, no failed requests; keyboard, phone and dark mode checks;
// then "Am I affected?" with JavaScript disabled, live and static.
//
// usage: node e2e.mjs KB_BINARY RECORDS_DIR OUT_DIR   (screenshots go to OUT_DIR)

import { spawn, spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { chromium } from "playwright-core";

const [kb, records, out] = process.argv.slice(2).map((p) => resolve(p));
const SEED = "pd-batch-invariant-mode-absent-from-kv-namespace";
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

const failures = [];
function check(ok, what) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failures.push(what);
}

function startServer() {
  return new Promise((resolvePort, reject) => {
    const child = spawn(kb, ["serve", "--records", records, "--port", "0", "--no-watch"],
      { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    const timer = setTimeout(() => reject(new Error("kb serve did not start: " + err)), 20000);
    child.stderr.on("data", (chunk) => {
      err += chunk;
      const m = /on http:\/\/127\.0\.0\.1:(\d+)\//.exec(err);
      if (m) {
        clearTimeout(timer);
        resolvePort({ child, port: Number(m[1]) });
      }
    });
    child.on("exit", (code) => reject(new Error(`kb serve exited ${code}: ${err}`)));
  });
}

// Everything the page reports that an operator would call broken.
function watch(page, problems) {
  page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on("response", (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
}

async function scenario(browser, name, homeUrl, seedSuffix) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  watch(page, problems);

  await page.goto(homeUrl);
  check((await page.locator("h1").first().textContent()).includes("Gotchas"), `${name}: home page loads`);
  await page.keyboard.press("Tab");
  check(await page.evaluate(() => document.activeElement?.classList.contains("skip")),
    `${name}: first Tab reaches the skip link`);

  await page.locator("#site-q").fill("mooncake");
  await Promise.all([page.waitForURL(/search/), page.locator("#site-q").press("Enter")]);
  const hit = page.locator(`#results a[href$="${SEED}${seedSuffix}"]`);
  await hit.waitFor({ timeout: 10000 });
  check(await page.locator("#results mark").count() > 0, `${name}: search results highlight the match`);

  await Promise.all([page.waitForURL(new RegExp(SEED)), hit.click()]);
  const badge = page.locator(".badges .badge.sev-major").first();
  check((await badge.textContent()) === "major", `${name}: seed 002 shows its severity badge`);
  // The page leads with the action: severity, fixed-in per engine, the first thing to do,
  // all within the first screen of a 1280x800 desktop.
  const act = await page.evaluate(() => {
    const el = document.getElementById("act-now");
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return { bottom: r.bottom, text: el.textContent };
  });
  check(act !== null && act.bottom <= 800, `${name}: #act-now is in the first desktop screen (${act && act.bottom})`);
  check(act !== null && /Major/.test(act.text) && /Mooncake/.test(act.text) && /Do first/.test(act.text),
    `${name}: #act-now says severity, engines and what to do first`);
  const repair = page.locator("#repairs table tbody tr").first();
  check((await repair.textContent()).includes("mooncache"), `${name}: seed 002 shows its repair log`);
  await page.screenshot({ path: join(out, `e2e-${name}-gotcha.png`), fullPage: true });

  await Promise.all([page.waitForURL(/engines\/mooncake/), page.locator("a.engine", { hasText: "Mooncake" }).first().click()]);
  check((await page.locator("h1").textContent()) === "Mooncake", `${name}: the engine link opens Mooncake's page`);
  await page.screenshot({ path: join(out, `e2e-${name}-engine.png`), fullPage: true });

  // The grouped home page: by family and by engine, silent gotchas first in every group.
  await page.goto(homeUrl);
  const groups = await page.evaluate(() => [...document.querySelectorAll("#by-family section.group, #by-engine section.group")]
    .map((g) => [...g.querySelectorAll("ul.gotchas > li")].map((li) => li.querySelector(".badge.silent") !== null)));
  check(groups.length > 2 && groups.every((g) => g.length > 0), `${name}: home groups gotchas by family and engine (${groups.length} groups)`);
  check(groups.every((g) => g.indexOf(false) === -1 || !g.slice(g.indexOf(false)).includes(true)),
    `${name}: silent gotchas come first in every group`);
  check(groups.some((g) => g[0]), `${name}: some group starts with a silent gotcha`);
  await page.screenshot({ path: join(out, `e2e-${name}-home.png`), fullPage: true });

  // A setting's page, from the home page's vocabulary list.
  await Promise.all([page.waitForURL(/settings\/prefix-caching/), page.locator("#settings a", { hasText: /^prefix_caching$/ }).click()]);
  check((await page.locator("dl.facts dd code.key").textContent()) === "prefix_caching", `${name}: the setting page shows its key`);
  check(await page.locator("table.spellings tbody tr").count() > 0, `${name}: the setting page shows how engines spell it`);
  check(await page.locator("#gotchas ul.gotchas li").count() > 0, `${name}: the setting page lists the gotchas testing it`);
  await page.screenshot({ path: join(out, `e2e-${name}-setting.png`), fullPage: true });

  // Phone: nothing wider than the screen. Dark mode: a dark background.
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: "dark" });
  const small = await phone.newPage();
  watch(small, problems);
  await small.goto(page.url().replace(/settings\/prefix-caching.*/, `gotchas/${SEED}${seedSuffix}`));
  check(await small.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
    `${name}: the gotcha page fits a phone screen`);
  const phoneAct = await small.evaluate(() => {
    const r = document.getElementById("act-now")?.getBoundingClientRect();
    return r ? { top: r.top, bottom: r.bottom } : null;
  });
  check(phoneAct !== null && phoneAct.top < 844 * 0.5 && phoneAct.bottom <= 844,
    `${name}: #act-now is in the first phone screen (${JSON.stringify(phoneAct)})`);
  const bg = await small.evaluate(() => getComputedStyle(document.body).backgroundColor);
  check(bg === "rgb(21, 23, 26)", `${name}: dark mode via prefers-color-scheme (${bg})`);
  await small.screenshot({ path: join(out, `e2e-${name}-phone-dark.png`), fullPage: true });

  check(problems.length === 0, `${name}: no console errors, CSP violations or failed requests` +
    (problems.length ? "\n    " + problems.join("\n    ") : ""));
  await phone.close();
  await context.close();
}

// Every gotcha page leads with the action: #act-now ends within the first screen on a
// 1280x800 desktop and on a 390x844 phone.
async function actNowEverywhere(browser, base) {
  const list = await (await fetch(`${base}api/v1/gotchas?limit=1000`)).json();
  const slugs = list.items.map((g) => g.id.split("/")[1]);
  check(slugs.length > 10, `act-now: the shipped gotchas are listed (${slugs.length})`);
  for (const [width, height] of [[1280, 800], [390, 844]]) {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    const late = [];
    for (const slug of slugs) {
      await page.goto(`${base}gotchas/${slug}`);
      const bottom = await page.evaluate(() => document.getElementById("act-now")?.getBoundingClientRect().bottom ?? Infinity);
      if (bottom > height) late.push(`${slug} (${Math.round(bottom)})`);
    }
    check(late.length === 0, `act-now: in the first ${width}x${height} screen on all ${slugs.length} gotcha pages` +
      (late.length ? `; not on ${late.length}: ${late.join(", ")}` : ""));
    await context.close();
  }
}

// "Am I affected?" with JavaScript off: paste the README's P/D deployment, choose its kind,
// submit, see the finding, follow it to its gotcha page; a YAML error shows line and
// column. The static site's page says it needs a live server and has no form.
const AFFECTED = "gotchas/apc-warm-hit-differs-from-cold";
const DEPLOYMENT = `engines: [{engine: vllm, version: 0.26.0}, {engine: lmcache, version: 0.3.9}]
config: {prefix_caching: true, kv_transfer: pd, kv_connector: LMCacheConnectorV1}
services:
  - {name: prefill, role: prefill, config: {tensor_parallel_size: 2}}
  - {name: decode, role: decode, config: {tensor_parallel_size: 4}}
`;

async function affected(browser, base, siteDir) {
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  watch(page, problems);
  await page.goto(base);
  await Promise.all([page.waitForURL(/\/check$/), page.locator("header nav a", { hasText: "Am I affected?" }).click()]);
  check((await page.locator("h1").textContent()) === "Am I affected?", "check: the header links to the page");
  await page.locator("#deployment").fill(DEPLOYMENT);
  await page.locator("#kind").selectOption("deployment");
  await Promise.all([page.waitForNavigation(), page.locator("#check-form button[type=submit]").click()]);
  const hit = page.locator(`#findings a.gotcha[href$="${AFFECTED}"]`);
  check(await hit.count() === 1, "check: the posted deployment shows its finding, linked");
  const hitService = (await page.locator("#findings li.finding", { has: page.locator(`a.gotcha[href$="${AFFECTED}"]`) }).locator("dd.service").textContent()).trim();
  // Both sides run vLLM with prefix caching: the finding names both, with their roles.
  check(hitService.includes("service prefill, role prefill") && hitService.includes("service decode, role decode"),
    `check: the finding names every service and role it hit (${hitService})`);
  check((await page.locator("#deployment").inputValue()) === DEPLOYMENT, "check: the form keeps the pasted text");
  check((await page.locator("#kind").inputValue()) === "deployment", "check: the form keeps the chosen kind");
  check(/would fail \(exit 1\)/.test(await page.locator("#verdict").textContent()), "check: the gate verdict says it fails");
  await page.screenshot({ path: join(out, "e2e-check-result.png"), fullPage: true });
  const title = (await hit.textContent()).trim();
  await Promise.all([page.waitForURL(new RegExp(AFFECTED + "$")), hit.click()]);
  check((await page.locator("h1").textContent()).trim() === title, "check: the finding's link opens its gotcha page");
  check(problems.length === 0, "check: no console errors, CSP violations or failed requests" +
    (problems.length ? "\n    " + problems.join("\n    ") : ""));

  // An error answers 400 with the page: watched apart, since its status is the point.
  const broken = await context.newPage();
  await broken.goto(base + "check");
  await broken.locator("#deployment").fill("engines:\n  - {engine: vllm, version: 0.26.0\nconfig: {}\n");
  const [answer] = await Promise.all([broken.waitForNavigation(), broken.locator("#check-form button[type=submit]").click()]);
  check(answer?.status() === 400, `check: a YAML error answers 400 (${answer?.status()})`);
  check((await broken.locator("#fail-closed").textContent()).includes("cannot say you are unaffected"), "check: a YAML error fails closed, plainly");
  const where = (await broken.locator("#diagnostics tbody tr td.where").first().textContent()).trim();
  check(/^line \d+, column \d+$/.test(where), `check: a YAML error shows line and column (${where})`);
  await broken.screenshot({ path: join(out, "e2e-check-error.png"), fullPage: true });

  const offline = await context.newPage();
  await offline.goto(`file://${siteDir}/check/index.html`);
  check((await offline.locator("#live-only").textContent()).includes("needs a running kb serve"), "check: the static page says it is live-only");
  check(await offline.locator("textarea, form[method=post]").count() === 0, "check: the static page has no form to post");
  await context.close();
}

const site = join(out, "e2e-site");
let server;
let browser;
try {
  const built = spawnSync(kb, ["site", "--records", records, "--out", site], { encoding: "utf8" });
  check(built.status === 0, `kb site writes the static site (${built.error ?? (built.stdout + built.stderr).trim()})`);
  server = await startServer();
  // Playwright gives every launch a fresh temporary profile (--user-data-dir) itself.
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: CHROMIUM_ARGS });
  await scenario(browser, "live", `http://127.0.0.1:${server.port}/`, "");
  await scenario(browser, "static", `file://${site}/index.html`, ".html");
  await affected(browser, `http://127.0.0.1:${server.port}/`, site);
  await actNowEverywhere(browser, `http://127.0.0.1:${server.port}/`);
} catch (e) {
  check(false, `scenario ran to the end: ${e.stack || e}`);
} finally {
  if (browser) await browser.close();
  if (server) server.child.kill("SIGTERM");
}
console.log(failures.length ? `${failures.length} checks failed` : "all checks passed");
process.exit(failures.length ? 1 : 0);
