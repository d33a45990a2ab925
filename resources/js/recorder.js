// @ts-check
// Show me once: what the person does in a page, as the agent's own actions, and the bar that says what to do. Installed
// by app/browser/recorder.py as an init script in every document (every frame) of the routine's browser, and into the
// documents already open. Called as `(source)(config, observe)`: config {binding, hook, tag}, observe the function of
// resources/js/observe.js, which names each element exactly as the agent's look does.
//
// Only the page's own trusted events count, caught in the capture phase at window level by listeners added before
// any page script ran: a click (on what the observer lists there), a field's final value (once the person leaves it,
// presses Enter in it, or the page goes), a choice in a list, a box ticked (by the mouse or Space), Enter in a field
// (what a form's default button then does is that Enter's), and a scroll that took the next element out of reach.
// A field for a password or a code is reported as such: Python compares its value with the row's secret cells and
// never keeps it. Each step comes with the document's listing when the person acted.
//
// The bar lives in a CLOSED shadow root of the top document, as the Stop bar does; what happens inside it is never
// a step. Python answers each new document's "ask" with whether it records and, for the top document of the
// window being shown, the bar's words.
/**
 * @typedef {{binding: string, hook: string, tag: string}} Config
 * @typedef {{say: string, done: string, cancel: string}} Words
 * @typedef {{recording: boolean, words?: Words | null}} Answer
 * @param {Config} config
 * @param {(options: Object) => {items: Array<{kind: string, ref: number}>}} observe
 */
(({binding, hook, tag}, observe) => {
  const win = /** @type {any} */ (window);
  const report = win[binding];
  if (typeof report !== 'function') return;
  // Kept in this closure only: page scripts see no function to call.
  try { delete win[binding]; } catch (e) { /* not configurable: harmless */ }
  // Where a step goes: to Python at once, or (``collected``) into the answer of Python's own last call.
  let collected = /** @type {Object[] | null} */ (null);
  const send = (message) => {
    if (collected) collected.push(message); else report(message).catch(() => {});
  };

  const TEXT_TYPES = new Set(['', 'text', 'email', 'search', 'tel', 'url', 'number', 'date', 'time',
    'datetime-local', 'month', 'week', 'password']);
  const SECRET_AUTOCOMPLETE = /(^|\s)(current-password|new-password|one-time-code)(\s|$)/i;
  const MARGIN = 1000;  // viewport heights: the whole document is listed
  const REACH = 0.5;  // viewport heights above and below that the agent's own look lists

  let recording = false;
  let host = /** @type {HTMLElement | null} */ (null);
  const own = {};  // the observer's state for this recorder (observe.js, `state`)
  const started = new WeakMap();  // a field -> its value when the person came to it
  const dirty = new Set();  // fields typed into since their value was last reported
  let lastY = window.scrollY;
  let absorbing = false;  // Enter was pressed in a field: the click it sets off on the default button is its own

  const composedParent = (el) => el.assignedSlot || el.parentElement || (el.parentNode && el.parentNode.host) || null;
  const inBar = (event) => host !== null && event.composedPath().includes(host);
  const isText = (el) => (el.tagName === 'INPUT' && TEXT_TYPES.has(el.type)) || el.tagName === 'TEXTAREA'
    || (el.isContentEditable && el.tagName !== 'INPUT');
  const isBox = (el) => el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio');
  const isSecret = (el) => el.tagName === 'INPUT'
    && (el.type === 'password' || SECRET_AUTOCOMPLETE.test(el.getAttribute('autocomplete') || ''));
  const valueOf = (el) => ('value' in el ? String(el.value) : String(el.innerText || ''));
  const target = (event) => {
    const path = event.composedPath();
    return path.length && path[0] instanceof Element ? path[0] : null;
  };
  // A control a person fills, ticks or chooses in: its own events say what became of it, not a click on it.
  const field = (el) => {
    for (let node = el; node; node = composedParent(node)) {
      if (node.tagName === 'LABEL' && node.control) return node.control;
      if (isText(node) || isBox(node) || node.tagName === 'SELECT' || node.tagName === 'OPTION') return node;
      if (node.tagName === 'BUTTON' || node.tagName === 'A') return null;
    }
    return null;
  };

  // The document's elements as the agent's look names them, and which of them ``el`` is (or is inside, or is
  // labelled by): its place in the listing, -1 when nothing listed is it.
  function look(el) {
    const result = observe({nonce: 'teach', margin: MARGIN, skip: tag, dry: true, state: own});
    const items = result.items.filter((item) => item.kind === 'el');
    const elements = /** @type {Element[]} */ (own.elements || []);
    const places = new Map(items.map((item, i) => [elements[item.ref], i]));
    let place = -1;
    for (let node = el; node && place < 0; node = composedParent(node)) {
      if (places.has(node)) place = places.get(node);
      for (const label of Array.from(node.labels || [])) if (place < 0 && places.has(label)) place = places.get(label);
    }
    return {items, place};
  }

  // One step: the action, its input, and the element it acts on (null for a key or a scroll).
  function step(action, input, el, secret = false) {
    const {items, place} = look(el);
    if (el && place < 0) return;  // nothing a person could name: no step to replay
    if (el) reachFor(el, items);
    send({kind: 'step', action, input, index: place, items, secret});
  }

  // The person scrolled the element into view: the agent's look, where the last step left the page, would not list
  // it, so the scroll is a step of its own (in half pages, as the scroll tool takes them).
  function reachFor(el, items) {
    const moved = window.scrollY - lastY;
    lastY = window.scrollY;
    const vh = window.innerHeight || 1;
    const top = el.getBoundingClientRect().top + moved;  // where it was when the last step was taken
    if (top >= -REACH * vh && top <= (1 + REACH) * vh) return;
    const pages = Math.min(10, Math.max(0.5, Math.round((Math.abs(moved) / vh) * 2) / 2));
    send({kind: 'step', action: 'scroll', input: {down: moved >= 0, num_pages: pages}, index: -1, items, secret: false});
  }

  function flush(el) {
    if (!dirty.has(el)) return;
    dirty.delete(el);
    const value = valueOf(el);
    if (value === started.get(el)) return;
    started.set(el, value);
    step('input_text', {text: value}, el, isSecret(el));
  }
  const flushAll = () => Array.from(dirty).forEach(flush);

  const trusted = (event) => recording && event.isTrusted && !inBar(event);
  const listen = (type, handler) => window.addEventListener(type, (event) => {
    if (trusted(event)) handler(event);
  }, true);

  listen('focusin', (event) => {
    const el = target(event);
    if (el && isText(el) && !dirty.has(el)) started.set(el, valueOf(el));
  });
  listen('input', (event) => {
    const el = target(event);
    if (!el || !isText(el)) return;
    if (!started.has(el)) started.set(el, '');
    dirty.add(el);
    own.typed = el;  // a list that shows right under it is its suggestions (observe.js)
  });
  listen('focusout', (event) => {
    const el = target(event);
    if (el) flush(el);
  });
  // A text field's value is its final one: taken when the person leaves it (a date field changes at each digit).
  listen('change', (event) => {
    const el = target(event);
    if (!el) return;
    if (el.tagName === 'SELECT') {
      flushAll();
      const chosen = Array.from(/** @type {HTMLSelectElement} */ (el).selectedOptions, (o) => o.text.trim());
      step('select_dropdown_option', {text: chosen.join(', ')}, el);
    } else if (isBox(el)) {
      flushAll();
      step('click_element_by_index', {}, el);
    }
  });
  listen('keydown', (event) => {
    const el = target(event);
    if (!el || event.key !== 'Enter' || event.isComposing || event.repeat) return;
    if (!((el.tagName === 'INPUT' && isText(el)) || isBox(el))) return;
    flushAll();
    step('send_keys', {keys: 'Enter'}, null);
    absorbing = true;
    setTimeout(() => { absorbing = false; }, 0);
  });
  listen('click', (event) => {
    const el = target(event);
    if (!el || (absorbing && event.detail === 0) || field(el)) return;
    flushAll();
    step('click_element_by_index', {}, el);
  });
  window.addEventListener('pagehide', () => { if (recording) flushAll(); }, true);

  // --- the bar (top document only) ---------------------------------------------------------------------------

  function build(words) {
    const el = document.createElement(tag);
    el.setAttribute('style', ['all: initial', 'position: fixed', 'left: 50%', 'bottom: 16px',
      'transform: translateX(-50%)', 'z-index: 2147483647', 'display: block', 'pointer-events: auto']
      .map((d) => d + ' !important').join(';'));
    const root = el.attachShadow({mode: 'closed'});
    const style = document.createElement('style');
    style.textContent = `
      .bar { display: flex; align-items: center; gap: 10px; padding: 8px 8px 8px 16px; border-radius: 12px;
        background: #0b6e69; color: #f9fafb; font: 500 14px/1.35 system-ui, -apple-system, "Segoe UI", sans-serif;
        box-shadow: 0 2px 12px rgba(0, 0, 0, 0.35); max-width: 720px; user-select: none; }
      button { font: 600 14px/1.3 system-ui, -apple-system, "Segoe UI", sans-serif; border: 0; border-radius: 999px;
        padding: 6px 14px; cursor: pointer; white-space: nowrap; }
      .done { background: #f9fafb; color: #0b6e69; }
      .cancel { background: transparent; color: #f9fafb; box-shadow: inset 0 0 0 1px #99f6e4; }
      button:focus-visible { outline: 2px solid #fff; outline-offset: 2px; }`;
    const bar = document.createElement('div');
    bar.className = 'bar';
    bar.setAttribute('role', 'status');
    const text = document.createElement('span');
    text.textContent = words.say;
    bar.append(text);
    for (const [name, label] of [['done', words.done], ['cancel', words.cancel]]) {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = name;
      button.textContent = label;
      button.addEventListener('click', (event) => {
        event.stopPropagation();
        if (event.isTrusted) {
          flushAll();
          send({kind: name, items: look(null).items});
        }
      });
      bar.append(button);
    }
    root.append(style, bar);
    return el;
  }

  function showBar(words) {
    if (host) host.remove();
    host = words ? build(words) : null;
    if (!host) return;
    const bar = host;
    const attach = () => { if (!bar.isConnected && document.documentElement) document.documentElement.appendChild(bar); };
    if (document.documentElement) attach(); else document.addEventListener('DOMContentLoaded', attach, {once: true});
  }

  /** @param {Answer | null} answer */
  function apply(answer) {
    recording = !!(answer && answer.recording);
    if (recording) lastY = window.scrollY;
    if (window.top === window) showBar(answer && answer.words ? answer.words : null);
  }

  // Python's last call, when the person said Done outside the page: the values still being typed, as steps, and the
  // document's listing.
  function finish() {
    collected = [];
    try {
      flushAll();
      return {steps: collected, items: look(null).items};
    } finally {
      collected = null;
    }
  }

  Object.defineProperty(window, hook, {value: (answer) => (answer === 'finish' ? finish() : apply(answer))});
  // A new document asks whether the person is being recorded (and says, from the top, that it has come).
  report({kind: 'ask'}).then(apply, () => {});
})
