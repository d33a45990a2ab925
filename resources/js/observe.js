// Lists the interactive elements of ONE frame's document (open shadow roots included) for the agent.
// Called by app/browser/observer.py as `frame.evaluate(source, options)`; iframes become placeholders that Python
// fills by running this script in the child frame (Playwright can only act on a handle from the owning frame).
//
// options: {nonce, margin, region}. region {top, bottom, left, right} is in this document's viewport coordinates
// (given for child frames); without it, the viewport plus `margin` viewport heights above and below is used.
// Only elements intersecting the region are listed. Returns {title, url, viewport, scroll, items, truncated}.
//
// Cost model: every element gets one getBoundingClientRect (cheap once layout is clean); only elements inside the
// region pay for getComputedStyle. elementFromPoint is dear on a long page (the hit test walks every sibling), so a
// candidate pays for it only when some unrelated on-screen element's box holds its centre: only such an element can
// be what the hit test finds on top of it.
(options) => {
  const STATE_KEY = '__pageAgent';
  const LABEL_MAX = 80;
  // Long enough for a paragraph's point (a price, an error, an instruction); the viewport bounds the total.
  const TEXT_MAX = 300;
  const VALUE_MAX = 60;
  const OPTIONS_MAX = 8;
  const ITEMS_MAX = 2000;

  const SKIP_TAGS = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'TITLE', 'BR']);
  const NATIVE_TAGS = new Set(['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'SUMMARY']);
  const FRAME_TAGS = new Set(['IFRAME', 'FRAME']);
  const ROLES = new Set([
    'button', 'link', 'checkbox', 'radio', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option',
    'combobox', 'listbox', 'switch', 'textbox', 'searchbox', 'slider', 'spinbutton', 'treeitem',
  ]);
  // Inline formatting whose text belongs to the surrounding sentence rather than to a line of its own.
  const INLINE_TAGS = new Set([
    'B', 'I', 'EM', 'STRONG', 'SPAN', 'CODE', 'SMALL', 'MARK', 'SUP', 'SUB', 'ABBR', 'TIME', 'U', 'S', 'Q', 'CITE',
    'KBD', 'VAR', 'DFN', 'FONT', 'BDI', 'BDO', 'DATA', 'INS', 'DEL',
  ]);
  const TEXT_INPUT_TYPES = new Set(['text', 'email', 'search', 'tel', 'url', 'number', 'date', 'time',
    'datetime-local', 'month', 'week', 'color', 'range']);

  let state = window[STATE_KEY];
  if (!state) {
    // Non-enumerable so that pages iterating window see nothing of us.
    state = {known: new WeakSet(), observed: false, nonce: '', elements: []};
    Object.defineProperty(window, STATE_KEY, {value: state, configurable: true});
  }
  // Nothing is "new" on the first look at a document: the marker is about what changed since the last step.
  const markNew = state.observed;
  const elements = [];
  const items = [];
  let frameSlots = 0;
  let truncated = false;
  // Boxes of the elements on screen, each with its span in visiting order: descendants of an element are exactly
  // the elements visited between `first` and `last`, which makes "related" a pair of comparisons.
  const onScreen = [];
  let visited = 0;
  // Listed candidates whose cover check waits until every element that might lie on top has been seen.
  const pending = [];

  const vw = window.innerWidth;
  const vh = window.innerHeight;
  const margin = options.margin * vh;
  const region = options.region || {top: -margin, bottom: vh + margin, left: 0, right: vw};

  const clean = (s) => s.replace(/\s+/g, ' ').trim();
  const cut = (s, max) => (s.length > max ? s.slice(0, max - 1) + '…' : s);

  function isCheapInteractive(el, tag) {
    if (NATIVE_TAGS.has(tag)) return !(tag === 'INPUT' && el.type === 'hidden');
    if (tag === 'A') return el.hasAttribute('href');
    const role = el.getAttribute('role');
    if (role && ROLES.has(role)) return true;
    const editable = el.getAttribute('contenteditable');
    if (editable === '' || editable === 'true' || editable === 'plaintext-only') return true;
    if (el.hasAttribute('onclick')) return true;
    const tabindex = el.getAttribute('tabindex');
    return tabindex !== null && parseInt(tabindex, 10) >= 0;
  }

  // a contains b in the composed tree (through slots and shadow hosts).
  function composedContains(a, b) {
    for (let n = b; n; n = n.assignedSlot || n.parentNode || n.host) {
      if (n === a) return true;
    }
    return false;
  }

  // The point a click would aim at: the centre of the element's on-screen part, or null when none of it is on screen.
  function visibleCentre(rect) {
    const left = Math.max(rect.left, 0);
    const right = Math.min(rect.right, vw);
    const top = Math.max(rect.top, 0);
    const bottom = Math.min(rect.bottom, vh);
    return right <= left || bottom <= top ? null : {x: (left + right) / 2, y: (top + bottom) / 2};
  }

  function mightBeCovered(box, centre) {
    return onScreen.some((other) => (other.first < box.first || other.first > box.last)  // not inside it
      && !(other.first < box.first && other.last >= box.last)  // nor around it
      && other.rect.left <= centre.x && centre.x <= other.rect.right
      && other.rect.top <= centre.y && centre.y <= other.rect.bottom);
  }

  function isCovered(box) {
    // Off-screen (in the margin): hit testing is impossible there, so trust the other checks.
    const centre = visibleCentre(box.rect);
    if (!centre || !mightBeCovered(box, centre)) return false;
    const el = box.el;
    const root = el.getRootNode();
    const hit = (root.elementFromPoint ? root : document).elementFromPoint(centre.x, centre.y);
    if (!hit || hit === el) return false;
    return !composedContains(el, hit) && !composedContains(hit, el);
  }

  // Text of an element's subtree without the text of nested interactive elements (those get their own line).
  function labelOf(el) {
    const parts = [];
    let length = 0;
    const childrenOf = (node) => (node.tagName === 'SLOT' && node.assignedNodes().length
      ? node.assignedNodes() : (node.shadowRoot || node).childNodes);
    const walk = (node) => {
      for (const child of childrenOf(node)) {
        if (length >= LABEL_MAX) return;
        if (child.nodeType === Node.TEXT_NODE) {
          const text = child.data.trim();
          if (text) {
            parts.push(text);
            length += text.length;
          }
        } else if (child.nodeType === Node.ELEMENT_NODE && !SKIP_TAGS.has(child.tagName)
                   && !isCheapInteractive(child, child.tagName)) {
          if (child.tagName === 'IMG' && child.alt) {
            parts.push(child.alt);
            length += child.alt.length;
          } else {
            walk(child);
          }
        }
      }
    };
    walk(el);
    return cut(clean(parts.join(' ')), LABEL_MAX);
  }

  // Direct text of a non-interactive element plus its inline formatting children: one readable sentence.
  function ownText(el) {
    const parts = [];
    for (let child = el.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === Node.TEXT_NODE) parts.push(child.data);
      else if (child.nodeType === Node.ELEMENT_NODE && INLINE_TAGS.has(child.tagName)
               && !isCheapInteractive(child, child.tagName)) parts.push(inlineText(child));
    }
    // Joined with spaces: styled pieces ("Phone" + "optional") are usually set apart visually, not glued.
    return clean(parts.join(' '));
  }

  // textContent, except that a <br> still separates words ("demo1234<br>Any" is not "demo1234Any").
  function inlineText(el) {
    let text = '';
    for (let child = el.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === Node.TEXT_NODE) text += child.data;
      else if (child.nodeType === Node.ELEMENT_NODE) text += child.tagName === 'BR' ? ' ' : inlineText(child);
    }
    return text;
  }

  // What a form control is called on screen: aria-labelledby, else its <label>s. Native controls have no text of
  // their own, and a field's label usually sits on another line, so the model could not tell fields apart.
  function controlLabel(el) {
    const ids = el.getAttribute('aria-labelledby');
    let parts = [];
    if (ids) {
      const root = el.getRootNode();
      parts = ids.split(/\s+/).map((id) => (root.getElementById ? root.getElementById(id) : null)
        || document.getElementById(id)).filter(Boolean).map(labelOf);
    } else if (el.labels) {
      parts = Array.from(el.labels, labelOf);
    }
    const text = clean(parts.join(' '));
    return text ? cut(text, VALUE_MAX) : null;
  }

  function shortHref(el) {
    const raw = el.getAttribute('href');
    if (!raw || raw.startsWith('javascript:')) return null;
    let url;
    try {
      url = new URL(raw, document.baseURI);
    } catch (e) {
      return cut(raw, VALUE_MAX);
    }
    // Generated addresses say nothing to the model and change on every visit.
    if (url.protocol === 'data:' || url.protocol === 'blob:') return `${url.protocol}…`;
    const local = url.origin === location.origin;
    const text = (local ? '' : url.host) + url.pathname + url.search + url.hash;
    return cut(text || '/', VALUE_MAX);
  }

  function scrollInfo(el, style) {
    if (el === document.scrollingElement || el === document.body) return null;
    const scrollsY = (style.overflowY === 'auto' || style.overflowY === 'scroll')
      && el.scrollHeight > el.clientHeight + 4;
    const scrollsX = (style.overflowX === 'auto' || style.overflowX === 'scroll')
      && el.scrollWidth > el.clientWidth + 4;
    if (!scrollsY && !scrollsX) return null;
    if (!scrollsY) return 'horizontal';
    const h = el.clientHeight || 1;
    const above = el.scrollTop / h;
    const below = Math.max(0, el.scrollHeight - el.clientHeight - el.scrollTop) / h;
    return `${above.toFixed(1)} pages above, ${below.toFixed(1)} below`;
  }

  function attributesOf(el, tag, scroll) {
    const attrs = [];
    const add = (name, value) => {
      if (value === null || value === undefined || value === false) return;
      attrs.push([name, value === true ? '' : String(value)]);
    };
    const get = (name) => {
      const v = el.getAttribute(name);
      return v === null || v === '' ? null : cut(clean(v), VALUE_MAX);
    };
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || el.hasAttribute('aria-labelledby')) {
      const label = controlLabel(el);
      if (label && label !== get('aria-label') && label !== get('placeholder')) add('label', label);
    }
    if (tag === 'INPUT') {
      const type = el.type;
      add('type', type);
      add('name', get('name'));
      add('placeholder', get('placeholder'));
      if (type === 'password') {
        add('value', el.value ? '••••' : null);  // never the secret itself
      } else if (type === 'checkbox' || type === 'radio') {
        add('checked', el.checked);
      } else if (type === 'file') {
        add('accept', get('accept'));
        const names = el.files ? Array.from(el.files, (f) => f.name).join(', ') : '';
        add('value', names ? cut(names, VALUE_MAX) : null);
      } else if (TEXT_INPUT_TYPES.has(type) || !type) {
        add('value', el.value ? cut(el.value, VALUE_MAX) : null);
      } else if (type === 'submit' || type === 'button' || type === 'reset') {
        add('value', get('value'));
      }
    } else if (tag === 'TEXTAREA') {
      add('name', get('name'));
      add('placeholder', get('placeholder'));
      add('value', el.value ? cut(clean(el.value), VALUE_MAX) : null);
    } else if (tag === 'SELECT') {
      add('name', get('name'));
      const chosen = el.selectedOptions;
      const chosenText = chosen ? Array.from(chosen, (o) => clean(o.text)).join(', ') : '';
      add('value', chosenText ? cut(chosenText, VALUE_MAX) : null);
      const names = Array.from(el.options, (o) => clean(o.text)).filter(Boolean);
      if (names.length) {
        const shown = names.slice(0, OPTIONS_MAX).join('|');
        add('options', names.length > OPTIONS_MAX ? `${shown}|…${names.length - OPTIONS_MAX} more` : shown);
      }
      add('multiple', el.multiple);
    } else if (tag === 'A') {
      add('href', shortHref(el));
    } else if (tag === 'BUTTON') {
      const type = el.getAttribute('type');
      if (type && type !== 'submit') add('type', type);
    }
    const role = el.getAttribute('role');
    if (role) add('role', role);
    for (const name of ['aria-label', 'title', 'alt', 'aria-expanded', 'aria-haspopup', 'aria-checked',
      'aria-selected', 'aria-pressed', 'aria-valuenow']) {
      add(name, get(name));
    }
    if (el.isContentEditable && !NATIVE_TAGS.has(tag)) add('contenteditable', true);
    add('required', el.required === true || el.getAttribute('aria-required') === 'true');
    add('disabled', el.disabled === true || el.getAttribute('aria-disabled') === 'true');
    add('readonly', el.readOnly === true);
    add('scrollable', scroll);
    return attrs;
  }

  // Parallel to items: the element an 'el' item stands for.
  const owners = [];

  function push(item, owner) {
    if (items.length >= ITEMS_MAX) {
      truncated = true;
      return false;
    }
    items.push(item);
    owners.push(owner);
    return true;
  }

  // ctx: {depth, parentPointer (true/false/undefined when the parent's style was not read), inInteractive,
  //       inText (the parent's line already carries this inline element's text)}
  function visit(el, ctx) {
    const tag = el.tagName;
    if (SKIP_TAGS.has(tag)) return;
    const cheap = isCheapInteractive(el, tag);
    const rect = el.getBoundingClientRect();
    const hasBox = rect.width > 0 && rect.height > 0;
    const first = visited++;
    let box = null;
    if (hasBox && rect.bottom > 0 && rect.top < vh && rect.right > 0 && rect.left < vw) {
      box = {el, rect, first, last: first};
      onScreen.push(box);
    }
    if (cheap && hasBox && !state.known.has(el)) {
      // Remembered even out of the region so that scrolling does not make old elements look new.
      if (rect.bottom < region.top || rect.top > region.bottom) state.known.add(el);
    }
    const inRegion = hasBox && rect.bottom >= region.top && rect.top <= region.bottom
      && rect.right >= region.left && rect.left <= region.right;

    let style = null;
    let pointer;
    let listed = false;
    let wroteText = false;
    let waiting = null;
    if (inRegion) {
      style = getComputedStyle(el);
      if (style.display === 'none' || style.opacity === '0') return;
      pointer = style.cursor === 'pointer';
    }
    if (inRegion && style.visibility === 'visible') {
      if (FRAME_TAGS.has(tag)) {
        frameSlot(el, rect, ctx.depth);
        return;
      }
      let parentPointer = ctx.parentPointer;
      if (parentPointer === undefined) {
        const parent = el.parentElement;
        parentPointer = !!parent && getComputedStyle(parent).cursor === 'pointer';
      }
      const scroll = scrollInfo(el, style);
      // A pointer cursor is inherited: only the element where it starts is the clickable one.
      const candidate = cheap || (pointer && !parentPointer && tag !== 'BODY' && tag !== 'HTML') || scroll !== null;
      if (candidate) {
        const text = NATIVE_TAGS.has(tag) && tag !== 'BUTTON' && tag !== 'SUMMARY' ? '' : labelOf(el);
        if (!push({kind: 'el', depth: ctx.depth, ref: -1, tag: tag.toLowerCase(),
          attrs: attributesOf(el, tag, scroll), text, isNew: markNew && !state.known.has(el)}, el)) return;
        listed = true;
        if (box) waiting = {box, item: items.length - 1, end: 0};
      } else if (!ctx.inInteractive && !(ctx.inText && INLINE_TAGS.has(tag))) {
        const text = ownText(el);
        if (text) {
          if (!push({kind: 'text', depth: ctx.depth, text: cut(text, TEXT_MAX)})) return;
          wroteText = true;
        }
      }
    }
    const childCtx = {
      depth: ctx.depth + (listed ? 1 : 0),
      parentPointer: pointer,
      inInteractive: ctx.inInteractive || listed || cheap,
      inText: wroteText || (ctx.inText && INLINE_TAGS.has(tag)),
    };
    visitChildren(el, childCtx);
    if (box) box.last = visited - 1;
    if (waiting) {
      waiting.end = items.length;
      pending.push(waiting);
    }
  }

  function visitChildren(el, ctx) {
    if (el.shadowRoot) {
      for (let c = el.shadowRoot.firstElementChild; c; c = c.nextElementSibling) visit(c, ctx);
      return;  // light children only render where a <slot> puts them
    }
    if (el.tagName === 'SLOT') {
      const assigned = el.assignedElements();
      if (assigned.length) {
        for (const c of assigned) visit(c, ctx);
        return;
      }
    }
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      if (truncated) return;
      visit(c, ctx);
    }
  }

  // The child frame's own document is observed from Python; tell it which part of the frame is worth listing.
  function frameSlot(el, rect, depth) {
    const originX = rect.left + el.clientLeft;
    const originY = rect.top + el.clientTop;
    const childRegion = {
      top: Math.max(region.top, originY) - originY,
      bottom: Math.min(region.bottom, originY + el.clientHeight) - originY,
      left: Math.max(region.left, originX) - originX,
      right: Math.min(region.right, originX + el.clientWidth) - originX,
    };
    if (childRegion.bottom <= childRegion.top || childRegion.right <= childRegion.left) return;
    const slot = `${options.nonce}:${frameSlots++}`;
    el.__pageAgentSlot = slot;  // read back by Python through frame.frame_element()
    push({kind: 'frame', depth, slot, region: childRegion});
  }

  visit(document.documentElement, {depth: 0, parentPointer: false, inInteractive: false, inText: false});

  // A covered element is left out (the click would land on what covers it); what it contained moves up a level.
  const dropped = new Set();
  for (const {box, item, end} of pending) {
    if (!isCovered(box)) continue;
    dropped.add(item);
    for (let i = item + 1; i < end; i++) items[i].depth -= 1;
  }
  const listing = [];
  items.forEach((item, i) => {
    if (dropped.has(i)) return;
    if (item.kind === 'el') {
      item.ref = elements.length;
      elements.push(owners[i]);
      // Only now is it known: a covered element seen again once the overlay goes is news to the model.
      state.known.add(owners[i]);
    }
    listing.push(item);
  });

  state.observed = true;
  state.nonce = options.nonce;
  state.elements = elements;

  const scroller = document.scrollingElement || document.documentElement;
  return {
    title: document.title,
    url: location.href,
    viewport: {width: vw, height: vh},
    scroll: {y: scroller.scrollTop, height: scroller.scrollHeight},
    items: listing,
    truncated,
  };
}
