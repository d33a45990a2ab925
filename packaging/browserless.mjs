// Starts browserless (npm @browserless.io/browserless) without Docker, for routines run with --browser-endpoint:
//
//   cd FOLDER-WHERE-IT-IS-INSTALLED && HOST=127.0.0.1 PORT=3000 TOKEN=... node /path/to/browserless.mjs
//
// Run it from the folder that holds node_modules (browserless reads some of its files relative to the current folder).
// Its stock start (build/index.js) stops at once unless Chrome, Edge, Firefox and WebKit are all installed; this
// serves the routes of the browsers that are, Chromium's included. It finds Chromium where playwright-core expects
// it: under $PLAYWRIGHT_BROWSERS_PATH (see the README's "Routines" for pointing that at Debian's Chromium).
//
// A routine runs for hours, so these settings differ from browserless' own defaults where that matters (set any of
// them in the environment to choose otherwise):
//   TIMEOUT=0      no time limit per session (browserless ends each session after 30 s by default, which cut every
//                  routine's browser off mid-way; a routine reconnects for the rows not begun, but the row in flight
//                  ends interrupted)
//   CONCURRENT     browsers at once (browserless' default, 10): each routine endpoint is one browser, whatever its
//                  --parallel (its rows are windows of that browser)
//   QUEUED         connections that wait for a browser (default 10); beyond them browserless answers 429, and a
//                  routine waits and asks again
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

process.env.TIMEOUT ??= '0';

const entry = createRequire(`${process.cwd()}/`).resolve('@browserless.io/browserless');
const { Browserless, availableBrowsers } = await import(pathToFileURL(entry).href);

const installed = await availableBrowsers;
const browserless = new Browserless();
const disabled = browserless.routeIsDisabled.bind(browserless);
browserless.routeIsDisabled = (route) => disabled(route) || Boolean(route.browser && !installed.includes(route.browser));

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.once(signal, async () => {
    await browserless.stop();  // and the browsers it started
    process.exit(0);
  });
}
await browserless.start();
