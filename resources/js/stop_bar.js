// The "Page Agent is working · Stop (Esc)" bar, installed by app/browser/stop_bar.py as an init script in every
// document of the agent's Chromium. Called as `(source)(config)` with config {binding, hook, tag}: the Playwright
// binding that reports to Python, the window property Python calls to show or hide the bar ({working, stop, action,
// waiting, paused, passive} or null: `action` is what the button reports, "stop" or "panel"; none, no button; `waiting`
// tints the bar as the moments that wait for the person, `paused` as a routine the person paused), and the bar's tag
// name.
// All three are random per session, so a page cannot guess them before the bar exists.
//
// The bar lives in a CLOSED shadow root: page scripts can neither read nor restyle what is inside it. Esc is caught
// in the capture phase at window level by a listener added before any page script ran, so no page can swallow it
// first. Only trusted events count: a page cannot press Stop for the user (nor is it harmful if it could: stopping
// is the safe direction). What a page can do is remove the bar's host or find the hook among window's properties and
// hide or re-word the bar: nothing it could not draw on its own page anyway, and Esc keeps working.
(({binding, hook, tag}) => {
  const report = window[binding];
  if (typeof report !== 'function') return;
  // Kept in this closure only: page scripts see no function to call.
  try { delete window[binding]; } catch (e) { /* not configurable: harmless, see above */ }

  window.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && event.isTrusted && !event.repeat) report('escape').catch(() => {});
  }, true);
  if (window.top !== window) return;  // one bar per tab, in its top document; Esc counts in every frame

  // The window was resized (maximized, say): Python looks at its state, once the resizing has settled.
  let resizing = 0;
  window.addEventListener('resize', () => {
    clearTimeout(resizing);
    resizing = setTimeout(() => report('resize').catch(() => {}), 250);
  });

  let host = null;
  let keeper = null;

  let shown = '';

  // Inline !important beats any page stylesheet; the host is only a positioned, transparent box. While the agent
  // acts on the page the bar lets the pointer through, so that an element under it can still be clicked.
  function place(el, passive) {
    el.setAttribute('style', ['all: initial', 'position: fixed', 'right: 16px', 'bottom: 16px',
      'z-index: 2147483647', 'display: block', `pointer-events: ${passive ? 'none' : 'auto'}`]
      .map((d) => d + ' !important').join(';'));
  }

  function build(labels) {
    const el = document.createElement(tag);
    place(el, labels.passive);
    const root = el.attachShadow({mode: 'closed'});
    const style = document.createElement('style');
    style.textContent = `
      .bar { display: flex; align-items: center; gap: 10px; padding: 6px 6px 6px 14px; border-radius: 999px;
        background: #1f2937; color: #f9fafb; font: 500 13px/1.3 system-ui, -apple-system, "Segoe UI", sans-serif;
        box-shadow: 0 2px 10px rgba(0, 0, 0, 0.35); white-space: nowrap; user-select: none; }
      .bar.waiting { background: #0b6e69; }
      .dot { width: 8px; height: 8px; border-radius: 50%; background: #60a5fa; }
      .waiting .dot { background: #99f6e4; }
      button { font: 600 13px/1.3 system-ui, -apple-system, "Segoe UI", sans-serif; color: #fff;
        background: #dc2626; border: 0; border-radius: 999px; padding: 5px 12px; cursor: pointer; }
      button:hover { background: #b91c1c; }
      .waiting button { background: #f9fafb; color: #0b6e69; }
      .waiting button:hover { background: #ccfbf1; }
      .paused .dot { background: #fbbf24; }
      .paused button { background: #f9fafb; color: #1f2937; }
      .paused button:hover { background: #e5e7eb; }
      button:focus-visible { outline: 2px solid #fff; outline-offset: 2px; }`;
    const bar = document.createElement('div');
    bar.className = labels.waiting ? 'bar waiting' : labels.paused ? 'bar paused' : 'bar';
    bar.setAttribute('role', 'status');
    const dot = document.createElement('span');
    dot.className = 'dot';
    const text = document.createElement('span');
    text.textContent = labels.working;
    bar.append(dot, text);
    if (labels.action) {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = labels.stop;
      button.addEventListener('click', (event) => {
        event.stopPropagation();
        if (event.isTrusted) report(labels.action).catch(() => {});
      });
      bar.append(button);
    }
    root.append(style, bar);
    return el;
  }

  function attach() {
    if (host && !host.isConnected && document.documentElement) document.documentElement.appendChild(host);
  }

  function show(labels) {
    const words = [labels.working, labels.stop, labels.action, labels.waiting, labels.paused].join('\n');
    if (host && shown === words) {
      place(host, labels.passive);
      return;
    }
    hide();
    shown = words;
    host = build(labels);
    if (document.documentElement) {
      attach();
    } else {
      document.addEventListener('DOMContentLoaded', attach, {once: true});
    }
    // A page that rewrites <html>'s children (some single-page apps) must not take the Stop button away.
    keeper = new MutationObserver(attach);
    const watch = () => document.documentElement && keeper.observe(document.documentElement, {childList: true});
    if (document.documentElement) watch(); else document.addEventListener('DOMContentLoaded', watch, {once: true});
  }

  function hide() {
    if (keeper) keeper.disconnect();
    if (host) host.remove();
    host = keeper = null;
    shown = '';
  }

  Object.defineProperty(window, hook, {value: (labels) => (labels ? show(labels) : hide())});
  // A new document (navigation, new tab) asks whether a run is on.
  report('ask').then((labels) => { if (labels) show(labels); }, () => {});
})
