// @ts-check
// Lists the interactive elements of ONE frame's document (open shadow roots included) for the agent.
// Called by app/browser/observer.py as `frame.evaluate(source, options)`; iframes become placeholders that Python
// fills by running this script in the child frame (Playwright can only act on a handle from the owning frame).
//
// options: {nonce, margin, region, alpha, skip, dry}. skip: the tag name of the app's own stop bar
// (app/browser/stop_bar.py), which is not the page's: it is neither listed nor counted as covering what lies under it.
// region {top, bottom, left, right} is in this document's viewport coordinates (given for child frames); without it,
// the viewport plus `margin` viewport heights above and below is used. alpha: the opacity the embedding page gives
// this frame. Only elements intersecting the region are listed. dry: a rehearsal while the page settles, so that the
// first real look at a new document runs compiled code; it keeps its state to itself and marks no frame.
// Returns {title, url, origin, viewport, scroll, items, truncated}.
//
// Only what a person can see is page text: text that is hidden, transparent, tiny, clipped away, off the page,
// the colour of its background, under an opaque box or inside a closed <details> is left out. An element may still
// be NAMED by its accessible name (an sr-only span in an icon button), clipped, when nothing visible names it.
//
// Cost model: every element gets one getBoundingClientRect (cheap once layout is clean); only elements inside the
// region pay for getComputedStyle. elementFromPoint is dear on a long page (the hit test walks every sibling), so a
// candidate pays for it only when some unrelated on-screen element's box holds its centre: only such an element can
// be what the hit test finds on top of it. Text visibility costs one style read per text-bearing element and one
// range measurement per text node, only inside the region.
//
// Type-checked by TypeScript (`// @ts-check`, jsconfig.json at the top of the checkout; packaging/setup.sh --test).
//
// What Python reads: one typedef for each model of app/browser/observer.py, by the same name
// (tests/browser/test_observe_types.py holds each to its model's fields; one optional here has a default there).
/**
 * @typedef {{top: number, bottom: number, left: number, right: number}} Region
 * @typedef {{kind: 'el', depth: number, ref: number, tag: string, attrs: [string, string][], text: string,
 *   key?: string, lines?: boolean, isNew: boolean}} ElementItem
 * @typedef {{kind: 'text', depth: number, text: string}} TextItem
 * @typedef {{kind: 'frame', depth: number, slot: string, region: Region, alpha: number}} FrameItem
 * @typedef {ElementItem | TextItem | FrameItem} Item
 * @typedef {{width: number, height: number}} Viewport
 * @typedef {{y: number, height: number}} Scroll
 * @typedef {{title: string, url: string, origin: string, viewport: Viewport, scroll: Scroll, items: Item[],
 *   truncated: boolean}} FrameSnapshot
 */
// The script's own:
/**
 * @typedef {{nonce: string, margin: number, region?: Region, alpha?: number, skip?: string | null, dry?: boolean}} Options
 * An element of the page as this script reads it: the properties of form controls, images, labels and <details> are
 * read only where its tag says it has them (the typed controls' own, where it reads more, as casts).
 * @typedef {Pick<HTMLInputElement, 'type' | 'labels' | 'required' | 'disabled' | 'readOnly' | 'alt' | 'multiple'>
 *   & Pick<HTMLLabelElement, 'control'> & Pick<HTMLDetailsElement, 'open'>} ControlParts
 * @typedef {HTMLElement & Partial<ControlParts> & {__pageAgentSlot?: string}} El
 * What an element does to what it paints: opacity, and the clip of in-flow, absolutely and fixed positioned content.
 * @typedef {{alpha: number, clip: Region | null, abs: Region | null, fixed: Region | null}} Paint
 * [red, green, blue, alpha], the colours from 0 to 255.
 * @typedef {[number, number, number, number]} Rgba
 * An element on screen and its span in visiting order (its descendants are the elements visited in between).
 * @typedef {{el: El, rect: DOMRect, first: number, last: number}} Box
 * A listed item whose cover check waits until everything that might lie on top of it has been seen.
 * @typedef {{box: Box, item: number, end: number, opaqueOnly: boolean}} Pending
 * Where the walk is: how deep the listing is, and what the elements around say of this one (see visit).
 * @typedef {{depth: number, parentPointer: boolean | undefined, inInteractive: boolean, inText: boolean,
 *   inRow: boolean, choices: El | null, lines: boolean}} Context
 * @typedef {{shown: string, named: string, whole: string}} Words
 * @typedef {{key: string, pointer: string, styled: string}} HoverRules
 * A node with the links of the composed tree it may have: an element's or a text's slot, a shadow root's host.
 * @typedef {Node & {assignedSlot?: HTMLSlotElement | null, host?: Element}} ComposedNode
 * The observer's state on the document's window (observer.py, typing.py and screenshot.py read parts of it).
 * @typedef {{known: WeakSet<Element>, observed: boolean, nonce: string, elements: El[], controls: WeakMap<El, El>,
 *   hover?: HoverRules, hrefs?: {key: string, map: Map<string, string | null>}, typed?: El | null,
 *   itemOf?: (el: El) => string}} State
 * @typedef {(name: string, value: string | number | boolean | null | undefined) => void} AddAttribute
 */
/**
 * @param {Options} options
 * @returns {FrameSnapshot}
 */
(options) => {
  const STATE_KEY = '__pageAgent';
  const LABEL_MAX = 80;
  // Long enough for a paragraph's point (a price, an error, an instruction); the viewport bounds the total.
  const TEXT_MAX = 300;
  const VALUE_MAX = 60;
  const OPTIONS_MAX = 8;
  // Thresholds of "a person cannot see it".
  const ALPHA_MIN = 0.1;
  const FONT_MIN = 2;  // px
  const BOX_MIN = 2;  // px: a box (or what clipping leaves of it) this thin in either direction shows nothing
  const CONTRAST_MIN = 1.1;  // WCAG contrast ratio of text to its background; 1 = the same colour
  const OPAQUE = 0.9;  // background alpha of a box that hides what lies under it
  const SKEW_MAX_COS = 0.966;  // a transform whose axes close to within 15 degrees skews glyphs past reading
  const ITEMS_MAX = 2000;

  // Never drawn where they stand: an SVG's definitions (a sprite's icons, gradients) are painted only through a
  // reference, which a person sees as the referring element.
  const SKIP_TAGS = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'TITLE', 'BR',
    'defs', 'symbol', 'clipPath', 'mask', 'linearGradient', 'radialGradient', 'pattern', 'filter', 'marker']);
  const NATIVE_TAGS = new Set(['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'SUMMARY']);
  const FRAME_TAGS = new Set(['IFRAME', 'FRAME']);
  const ROLES_LIST = [
    'button', 'link', 'checkbox', 'radio', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option',
    'combobox', 'listbox', 'switch', 'textbox', 'searchbox', 'slider', 'spinbutton', 'treeitem',
  ];
  const ROLES = new Set(ROLES_LIST);
  // Inline formatting whose text belongs to the surrounding sentence rather than to a line of its own.
  const INLINE_TAGS = new Set([
    'B', 'I', 'EM', 'STRONG', 'SPAN', 'CODE', 'SMALL', 'MARK', 'SUP', 'SUB', 'ABBR', 'TIME', 'U', 'S', 'Q', 'CITE',
    'KBD', 'VAR', 'DFN', 'FONT', 'BDI', 'BDO', 'DATA', 'INS', 'DEL',
  ]);
  // A pointer cursor set on one of these is the list's, not one target: its rows and items are the targets.
  const LIST_TAGS = new Set(['UL', 'OL', 'MENU', 'DL', 'TABLE', 'THEAD', 'TBODY', 'TFOOT']);
  // Listed elements inside which a nested element can be a target of its own (an inbox row's star icon); inside a
  // link or a button it cannot.
  const CONTROL_TAGS = new Set(['A', 'BUTTON', 'SUMMARY', 'LABEL']);
  // A field that says it holds a password or a code whatever its type (a "show password" toggle makes it text).
  const SECRET_AUTOCOMPLETE = /(^|\s)(current-password|new-password|one-time-code)(\s|$)/i;
  // Icon fonts and sprites name an icon in a class or symbol: a set's own class ("fa", "icon") and its icon's
  // ("fa-trash", "icon-close"), with size and style modifiers that say nothing of what it does.
  const ICON_SETS = 'fa[srlbdk]?|bi|glyphicon|icons?|mdi|ti|ri|la[srb]?|octicon|ic|gg|feather|lucide|ph|bx[sl]?|uil|ion'
    + '|codicon|pi|el-icon|anticon|dashicons|zmdi|oi|fi|ui-icon|ql|material-icons|material-symbols-\\w+';
  // Icon fonts whose icon is a word drawn as one glyph (a ligature: <i class="material-icons">star</i>).
  const LIGATURE_SET = /(?:^|\s)material-(?:icons|symbols)[-\w]*(?:\s|$)/;
  const ICON_SET = new RegExp(`^(?:${ICON_SETS})$`);
  const ICON_CLASS = new RegExp(`^(?:${ICON_SETS})[-_](.+)$`);
  const ICON_MODIFIER = /^(?:xs|sm|md|lg|xl|\d*x[sl]?|\d+x|fw|spin|pulse|border|inverse|stack(?:-\dx)?|solid|regular|light|thin|brands|duotone|sharp|outline[sd]?|filled|round(?:ed)?|ul|li|(?:pull|flip|rotate|size)-\w+|\d+)$/;
  // Tooltips as widget libraries keep them.
  const TOOLTIP_ATTRS = ['aria-label', 'title', 'data-tooltip', 'data-original-title', 'data-bs-original-title',
    'data-tip', 'data-title'];
  const ICON_PARTS_MAX = 30;
  // Words of a class, an id or a file name that say how an element looks or where it sits, never what it does: the
  // one word left once they are gone names an icon ("star sprite" -> star, "btn_reply@2x.png" -> reply).
  const PLAIN_WORDS = new Set(('icon icons ico btn button buttons act action actions tool tools item items control '
    + 'controls ctrl link active selected disabled hidden visible show shown open closed sprite sprites img image '
    + 'images pic svg pull left right top bottom center centre float clearfix inline block flex grid small large big '
    + 'mini tiny col row wrapper wrap container inner outer holder box card media pointer clickable hover focus '
    + 'default primary secondary light dark white black grey gray muted text label main content body header footer '
    + 'nav menu list entry cell view panel widget component glyph symbol badge round rounded circle square outline '
    + 'outlined filled solid regular thin fill the and').split(' '));
  const PLAIN_PREFIX = /^(?:js|is|has|ng|css|sc|jsx|u|v)-/;
  // A box this small (px) in a line of words is an icon, not a picture: it is written into the words by its name.
  const GLYPH_MAX = 48;
  // How far up an unnamed icon looks for the card it belongs to (the nearest box with words in it).
  const CARD_DEPTH = 6;
  // A lone symbol a person reads as a button when a script, not the markup, makes it one ("+", "−", "×", "☆").
  const SYMBOLS = new Set(['+', '\u2212', '\uff0b', '\u00d7', '\u2715', '\u2716', '\u2606', '\u2605', '\u2661', '\u2665',
    '\u25b2', '\u25bc', '\u25b4', '\u25be', '\u22ee', '\u22ef', '\u270e', '\u270f']);
  // Click handlers a script sets as properties: the markup shows none of them.
  /** @type {('onclick' | 'onmousedown' | 'onmouseup' | 'onpointerdown' | 'onpointerup')[]} */
  const HANDLERS = ['onclick', 'onmousedown', 'onmouseup', 'onpointerdown', 'onpointerup'];
  // Something inside that would be listed on its own: then the element is a group, not an icon.
  const INTERACTIVE_INSIDE = 'a[href], button, input, select, textarea, [tabindex], [onclick], '
    + Array.from(ROLES_LIST, (role) => `[role=${role}]`).join(', ');
  const TEXT_INPUT_TYPES = new Set(['text', 'email', 'search', 'tel', 'url', 'number', 'date', 'time',
    'datetime-local', 'month', 'week', 'color', 'range']);

  // Filled in below: the init script that preloads the observer (observer.py) leaves all but its own parts to it.
  const fresh = () => /** @type {State} */ ({});
  const host = /** @type {Window & {[STATE_KEY]?: State}} */ (window);
  let found = options.dry ? fresh() : host[STATE_KEY];
  if (!found) {
    // Non-enumerable so that pages iterating window see nothing of us.
    found = fresh();
    Object.defineProperty(window, STATE_KEY, {value: found, configurable: true});
  }
  const state = found;
  // The init script that preloads the observer (observer.py) leaves the state to the first look.
  if (!state.known) {
    Object.assign(state, {known: /** @type {WeakSet<Element>} */ (new WeakSet()), observed: false, nonce: '',
      elements: []});
  }
  // A document that outlived an app update keeps the older observer's state.
  if (!state.controls) state.controls = /** @type {WeakMap<El, El>} */ (new WeakMap());
  // Nothing is "new" on the first look at a document: the marker is about what changed since the last step.
  const markNew = state.observed;
  /** @type {El[]} */
  const elements = [];
  /** @type {Item[]} */
  const items = [];
  let frameSlots = 0;
  let truncated = false;
  // Boxes of the elements on screen, each with its span in visiting order: descendants of an element are exactly
  // the elements visited between `first` and `last`, which makes "related" a pair of comparisons.
  /** @type {Box[]} */
  const onScreen = [];
  let visited = 0;
  // Listed candidates whose cover check waits until every element that might lie on top has been seen.
  /** @type {Pending[]} */
  const pending = [];
  // Controls under their own label's decoration, and the label that takes their clicks.
  /** @type {Map<El, El>} */
  const standIns = new Map();
  // Wrappers listed through the elements inside them (mergeWrapper): their items' indices.
  /** @type {Set<number>} */
  const merged = new Set();

  const vw = window.innerWidth;
  const vh = window.innerHeight;
  const margin = options.margin * vh;
  const region = options.region || {top: -margin, bottom: vh + margin, left: 0, right: vw};
  const scroller = document.scrollingElement || document.documentElement;
  // Where text can be at all: across the viewport, and down the page (never above its top or below its end).
  const pageBounds = () => ({left: 0, right: vw, top: -scroller.scrollTop,
    bottom: scroller.scrollHeight - scroller.scrollTop});
  let page = pageBounds();
  /** @type {Paint} */
  const ROOT_PAINT = {alpha: options.alpha ?? 1, clip: null, abs: null, fixed: null};

  // Per look: styles, paint contexts and backgrounds are read at most once per element.
  /** @type {Map<Element, CSSStyleDeclaration>} */
  let styles = new Map();
  /** @type {Map<Element, Paint>} */
  let paints = new Map();
  /** @type {Map<Element, Rgba[] | null>} */
  let backgrounds = new Map();
  /** @type {Map<Element, boolean>} */
  let textStyles = new Map();
  const range = document.createRange();

  const SKIP = options.skip ? options.skip.toUpperCase() : null;

  /** @type {(s: string) => string} */
  const clean = (s) => s.replace(/\s+/g, ' ').trim();
  /** @type {(s: string, max: number) => string} */
  const cut = (s, max) => (s.length > max ? s.slice(0, max - 1) + '…' : s);

  // The page's :hover rules, as selectors without the :hover (read again only when its style sheets change):
  // `pointer`, what shows a pointer only under the mouse (a feed item's icons); `styled`, what reacts to the mouse
  // on its own (each action of a toolbar that sets the pointer once for all of them). '' when none.
  const HOVER_SELECTORS_MAX = 200;
  /** @returns {HoverRules} */
  function hoverRules() {
    const sheets = document.styleSheets;
    let key = `${sheets.length}`;
    const readable = [];
    for (const sheet of sheets) {
      try {
        key += `,${sheet.cssRules.length}`;
        readable.push(sheet);
      } catch (e) {
        key += ',-';  // another origin's sheet: its rules cannot be read
      }
    }
    if (state.hover && state.hover.key === key) return state.hover;
    /** @type {string[]} */
    const pointer = [];
    /** @type {string[]} */
    const styled = [];
    const read = (/** @type {CSSRuleList} */ rules) => {
      for (const any of rules) {
        // A style rule has a selector and a style; a grouping rule (@media, @supports, @layer) has rules.
        const rule = /** @type {CSSStyleRule} */ (any);
        if (pointer.length + styled.length >= HOVER_SELECTORS_MAX) return;
        const selector = rule.selectorText;
        if (!selector) {
          if (rule.cssRules) read(rule.cssRules);  // @media, @supports, @layer
          continue;
        }
        if (!selector.includes(':hover')) continue;
        for (const part of selector.split(',')) {
          const plain = part.replace(/:hover\b/g, '').trim();
          // Functional pseudo-classes and nesting (&) say too little out of their rule to be matched alone.
          if (!part.includes(':hover') || !plain || plain === '*' || /[(&]/.test(plain)) continue;
          if (rule.style.cursor === 'pointer') pointer.push(plain);
          else if (/:hover\s*$/.test(part)) styled.push(plain);
        }
      }
    };
    for (const sheet of readable) read(sheet.cssRules);
    const valid = (/** @type {string[]} */ list) => {
      const joined = list.join(', ');
      try {
        document.createDocumentFragment().querySelector(joined || '*');
        return joined;
      } catch (e) {
        return list.filter((one) => {
          try {
            document.createDocumentFragment().querySelector(one);
            return true;
          } catch (err) {
            return false;
          }
        }).join(', ');
      }
    };
    state.hover = {key, pointer: valid(pointer), styled: valid(styled)};
    return state.hover;
  }
  let hover = hoverRules();

  /** @param {Element} el */
  function styleOf(el) {
    let style = styles.get(el);
    if (!style) {
      style = getComputedStyle(el);
      styles.set(el, style);
    }
    return style;
  }

  /** The element's parent in the composed tree (a slot it is assigned to, a shadow root's host). */
  const composedParent = (/** @type {Element} */ el) => /** @type {El | null} */ (el.assignedSlot || el.parentElement
    || (el.parentNode && /** @type {ComposedNode} */ (el.parentNode).host) || null);

  /**
   * @param {Region | null} a
   * @param {Region | null} b
   * @returns {Region | null}
   */
  function intersect(a, b) {
    if (!a) return b;
    if (!b) return a;
    return {left: Math.max(a.left, b.left), right: Math.min(a.right, b.right),
      top: Math.max(a.top, b.top), bottom: Math.min(a.bottom, b.bottom)};
  }

  // Whether enough of `rect` is left inside `clip` (null: unclipped) for a person to see anything.
  /**
   * @param {Region} rect
   * @param {Region | null} clip
   */
  function shows(rect, clip) {
    const r = /** @type {Region} */ (intersect(rect, clip));
    return r.right - r.left > BOX_MIN && r.bottom - r.top > BOX_MIN;
  }

  // The box that `clip: rect(...)` or a clip-path that hides everything leaves of an element; null when none.
  /**
   * @param {El} el
   * @param {CSSStyleDeclaration} style
   * @param {DOMRect} rect
   * @returns {Region | null}
   */
  function clipBox(el, style, rect) {
    const path = style.clipPath;
    if (path && path !== 'none') {
      const inset = /^inset\(\s*([\d.]+)%/.exec(path);
      if ((inset && parseFloat(inset[1]) >= 50) || /^(circle|ellipse)\(\s*0(px|%)?[\s)]/.test(path)) {
        return {left: rect.left, right: rect.left, top: rect.top, bottom: rect.top};
      }
    }
    const positioned = style.position === 'absolute' || style.position === 'fixed';
    if (!positioned || !style.clip || style.clip === 'auto') return null;
    const edges = /rect\(([^,\s]+)[,\s]+([^,\s]+)[,\s]+([^,\s]+)[,\s]+([^,)\s]+)\)/.exec(style.clip);
    if (!edges) return null;
    /** @type {(value: string, auto: number) => number} */
    const at = (value, auto) => (value === 'auto' ? auto : parseFloat(value));
    return {top: rect.top + at(edges[1], 0), right: rect.left + at(edges[2], rect.width),
      bottom: rect.top + at(edges[3], rect.height), left: rect.left + at(edges[4], 0)};
  }

  // What an element does to the content it paints (its children, its text): opacity multiplied down the tree, and
  // what overflow clipping leaves visible, for in-flow, absolutely and fixed positioned content (null: unclipped).
  /**
   * @param {El} el
   * @param {CSSStyleDeclaration} style
   * @param {DOMRect} rect
   * @param {Paint} outer
   * @returns {Paint}
   */
  function paintInside(el, style, rect, outer) {
    const position = style.position;
    let clip = position === 'fixed' ? outer.fixed : position === 'absolute' ? outer.abs : outer.clip;
    clip = intersect(clip, clipBox(el, style, rect));
    // The root's and body's overflow belongs to the viewport: the region and the page bounds handle it.
    if (el !== document.documentElement && el !== document.body) {
      const clipsX = style.overflowX === 'hidden' || style.overflowX === 'clip';
      const clipsY = style.overflowY === 'hidden' || style.overflowY === 'clip';
      // A scroll box clips too, but what it scrolls away is "scroll to see" (its line says so), not hidden text;
      // only a scroll box too thin to show anything hides its content.
      const tiny = (style.overflowX !== 'visible' || style.overflowY !== 'visible')
        && (rect.width <= BOX_MIN || rect.height <= BOX_MIN);
      const x = clipsX || tiny;
      const y = clipsY || tiny;
      if (x || y) {
        clip = intersect(clip, {left: x ? rect.left : -Infinity, right: x ? rect.right : Infinity,
          top: y ? rect.top : -Infinity, bottom: y ? rect.bottom : Infinity});
      }
    }
    // A transform or filter makes the element the containing block of positioned content (only matters once
    // something clips; computed style reads are the observer's main cost).
    const contains = (clip || outer.abs || outer.fixed) && (style.transform !== 'none' || style.filter !== 'none');
    return {
      alpha: outer.alpha * parseFloat(style.opacity) * filterAlpha(style.filter) * (hiddenByPaint(style) ? 0 : 1),
      clip,
      abs: position !== 'static' || contains ? clip : outer.abs,
      fixed: contains ? clip : outer.fixed,
    };
  }

  // filter: opacity(x), alone or in a chain, multiplies what the element paints, as opacity does.
  /** @param {string} filter */
  function filterAlpha(filter) {
    if (filter === 'none' || !filter.includes('opacity')) return 1;
    let alpha = 1;
    for (const m of filter.matchAll(/opacity\(\s*([\d.]+)(%?)\s*\)/g)) alpha *= parseFloat(m[1]) / (m[2] ? 100 : 1);
    return alpha;
  }

  // A mask of fully transparent colours only (a gradient from transparent to transparent), or a transform that
  // skews the content nearly flat: a person sees nothing readable.
  /** @param {CSSStyleDeclaration} style */
  function hiddenByPaint(style) {
    const mask = style.webkitMaskImage;
    if (mask && mask !== 'none' && !mask.includes('url(')) {
      const stops = mask.match(/rgba?\([^)]*\)|transparent/g);
      if (stops && stops.every((c) => c === 'transparent' || (rgba(c) || [0, 0, 0, 1])[3] < ALPHA_MIN)) return true;
    }
    const transform = style.transform;
    if (transform === 'none') return false;
    const m = /^matrix\(([^)]+)\)$/.exec(transform);
    if (!m) return false;
    const [a, b, c, d] = m[1].split(',').map(parseFloat);
    return Math.abs(a * c + b * d) > SKEW_MAX_COS * Math.hypot(a, b) * Math.hypot(c, d);
  }

  /**
   * @param {El} el
   * @param {CSSStyleDeclaration} [style]
   * @param {DOMRect} [rect]
   * @returns {Paint}
   */
  function paintOf(el, style, rect) {
    let paint = paints.get(el);
    if (!paint) {
      const parent = composedParent(el);
      paint = paintInside(el, style || styleOf(el), rect || el.getBoundingClientRect(),
        parent ? paintOf(parent) : ROOT_PAINT);
      paints.set(el, paint);
    }
    return paint;
  }

  // [r, g, b, a] of a computed colour; null for a colour space we do not read (then nothing is judged by it).
  /**
   * @param {string} value
   * @returns {Rgba | null}
   */
  function rgba(value) {
    const m = /^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)$/.exec(value);
    return m ? [+m[1], +m[2], +m[3], m[4] === undefined ? 1 : +m[4]] : null;
  }

  // The colours behind an element's text: the first solid enough background up the tree (white at the root), or
  // the colours of a gradient there; null behind an image or an unreadable colour.
  /**
   * @param {Element} el
   * @returns {Rgba[] | null}
   */
  function backgroundOf(el) {
    if (backgrounds.has(el)) return /** @type {Rgba[] | null} */ (backgrounds.get(el));
    const style = styleOf(el);
    /** @type {Rgba[] | null} */
    let colours;
    const image = style.backgroundImage;
    if (image !== 'none') {
      const stops = image.includes('url(') ? null : image.match(/rgba?\([^)]*\)/g);
      const read = stops ? stops.map(rgba) : null;
      colours = read && !read.some((c) => c === null || c[3] < 0.5) ? /** @type {Rgba[]} */ (read) : null;
    } else {
      const own = rgba(style.backgroundColor);
      const parent = composedParent(el);
      if (own === null) colours = null;
      else if (own[3] >= 0.5) colours = [own];
      else colours = parent ? backgroundOf(parent) : [[255, 255, 255, 1]];
    }
    backgrounds.set(el, colours);
    return colours;
  }

  /** @param {number[]} rgb  red, green, blue (and alpha) from 0 to 255 */
  function luminance([r, g, b]) {
    const lin = (/** @type {number} */ c) => {
      const v = c / 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  }

  // Whether the text an element holds directly can be seen, as far as its style says (visibility, size, colour).
  /** @param {El} el */
  function textStyleShows(el) {
    if (textStyles.has(el)) return textStyles.get(el);
    const style = styleOf(el);
    let ok = style.visibility === 'visible' && parseFloat(style.fontSize) >= FONT_MIN;
    // The colour glyphs are painted in; SVG text is painted by its fill (and stroke).
    let colour = ok ? rgba(style.webkitTextFillColor) : null;
    if (ok && el instanceof SVGElement) {
      const painted = (/** @type {string} */ paint, /** @type {string} */ opacity) => paint !== 'none'
        && parseFloat(opacity) >= ALPHA_MIN;
      ok = painted(style.fill, style.fillOpacity)
        || (painted(style.stroke, style.strokeOpacity) && parseFloat(style.strokeWidth) > 0);
      colour = ok && style.fill !== 'none' && style.stroke === 'none' ? rgba(style.fill) : null;
    }
    if (colour && colour[3] < ALPHA_MIN) {
      ok = false;
    } else if (colour) {
      const behind = backgroundOf(el);
      if (behind) {
        // Seen where it stands out from some part of what is behind it.
        const a = colour[3];
        ok = behind.some((back) => {
          const seen = [0, 1, 2].map((i) => a * colour[i] + (1 - a) * back[i]);
          const [l1, l2] = [luminance(seen), luminance(back)].sort((x, y) => y - x);
          return (l1 + 0.05) / (l2 + 0.05) >= CONTRAST_MIN;
        });
      }
    }
    // Gradient text paints its background through transparent glyphs.
    if (!ok && colour && style.webkitBackgroundClip === 'text') ok = true;
    textStyles.set(el, ok);
    return ok;
  }

  // Whether a person can see a text node: its element's style, its opacity, and where its glyphs land.
  /**
   * @param {Text} node
   * @param {El} el
   */
  function textShows(node, el) {
    if (!textStyleShows(el)) return false;
    const paint = paintOf(el);
    if (paint.alpha < ALPHA_MIN) return false;
    range.selectNodeContents(node);
    return shows(range.getBoundingClientRect(), intersect(paint.clip, page));
  }

  // A closed <details> shows its <summary> only.
  const isClosedDetails = (/** @type {El} */ el, tag = el.tagName) => tag === 'DETAILS' && !el.open;

  /**
   * @param {El} el
   * @param {string} tag
   */
  function isCheapInteractive(el, tag) {
    if (NATIVE_TAGS.has(tag)) return !(tag === 'INPUT' && el.type === 'hidden');
    if (tag === 'A' && el.hasAttribute('href')) return true;
    // Most elements of a page carry no attribute at all: one call answers for the reads below.
    if (!el.hasAttributes()) return false;
    // A link without an address that a script handles (a date picker's month arrows): it has a tooltip or data.
    if (tag === 'A' && (el.hasAttribute('title') || el.getAttributeNames().some((name) => name.startsWith('data-')))) {
      return true;
    }
    const role = el.getAttribute('role');
    if (role && ROLES.has(role)) return true;
    const editable = el.getAttribute('contenteditable');
    if (editable === '' || editable === 'true' || editable === 'plaintext-only') return true;
    if (el.hasAttribute('onclick')) return true;
    const tabindex = el.getAttribute('tabindex');
    return tabindex !== null && parseInt(tabindex, 10) >= 0;
  }

  // a contains b in the composed tree (through slots and shadow hosts).
  /**
   * @param {Node} a
   * @param {Node} b
   */
  function composedContains(a, b) {
    for (let n = /** @type {ComposedNode | null} */ (b); n; n = n.assignedSlot || n.parentNode || n.host || null) {
      if (n === a) return true;
    }
    return false;
  }

  // The point a click would aim at: the centre of the element's on-screen part, or null when none of it is on screen.
  /** @param {Region} rect */
  function visibleCentre(rect) {
    const left = Math.max(rect.left, 0);
    const right = Math.min(rect.right, vw);
    const top = Math.max(rect.top, 0);
    const bottom = Math.min(rect.bottom, vh);
    return right <= left || bottom <= top ? null : {x: (left + right) / 2, y: (top + bottom) / 2};
  }

  // onScreen by horizontal band of the viewport, built at the first cover check: a box can only hold a centre that
  // lies in one of the bands it spans, so each check compares with a few boxes instead of every one on screen.
  const BAND = 64;  // px
  /** @type {Box[][] | null} */
  let bands = null;
  /** @param {number} y */
  function bandOf(y) {
    if (!bands) {
      bands = [];
      for (const other of onScreen) {
        const last = Math.floor(Math.min(other.rect.bottom, vh) / BAND);
        for (let b = Math.floor(Math.max(other.rect.top, 0) / BAND); b <= last; b++) (bands[b] ||= []).push(other);
      }
    }
    return bands[Math.floor(y / BAND)] || [];
  }

  /**
   * @param {Box} box
   * @param {{x: number, y: number}} centre
   */
  function mightBeCovered(box, centre) {
    return bandOf(centre.y).some((other) => (other.first < box.first || other.first > box.last)  // not inside it
      && !(other.first < box.first && other.last >= box.last)  // nor around it
      && other.rect.left <= centre.x && centre.x <= other.rect.right
      && other.rect.top <= centre.y && centre.y <= other.rect.bottom);
  }

  // opaqueOnly: for what is read rather than clicked, only a box that hides it counts (a dimming veil does not).
  /**
   * @param {Box} box
   * @param {boolean} opaqueOnly
   */
  function isCovered(box, opaqueOnly) {
    // Off-screen (in the margin): hit testing is impossible there, so trust the other checks.
    const centre = visibleCentre(box.rect);
    if (!centre || !mightBeCovered(box, centre)) return false;
    const el = box.el;
    const root = el.getRootNode();
    // A shadow root hit-tests inside itself.
    const hit = (root instanceof ShadowRoot ? root : document).elementFromPoint(centre.x, centre.y);
    if (!hit || hit === el || composedContains(el, hit) || composedContains(hit, el)) return false;
    if (hit.tagName === SKIP) return false;
    // A control under its own label's decoration (a custom checkbox's box): the click lands on the label, which
    // passes it to the control.
    const label = el.labels && Array.from(el.labels).find((l) => l === hit || composedContains(l, hit));
    if (label) {
      standIns.set(el, label);  // a click on the control would hit the decoration: the label takes it
      return false;
    }
    if (!opaqueOnly) return true;
    for (let n = /** @type {El | null} */ (hit); n && !composedContains(n, el); n = composedParent(n)) {
      if (hides(n)) return true;
    }
    return false;
  }

  /** @param {El} el */
  function hides(el) {
    if (el.tagName === 'IMG' || el.tagName === 'VIDEO' || el.tagName === 'CANVAS' || el.tagName === 'IFRAME') {
      return true;
    }
    const style = styleOf(el);
    const colour = rgba(style.backgroundColor);
    return style.backgroundImage !== 'none' || (colour !== null && colour[3] * parseFloat(style.opacity) >= OPAQUE);
  }

  // Listed for an onclick attribute alone: nothing else in its markup makes it a control.
  /** @type {(el: El, tag: string) => boolean} */
  const onlyHandler = (el, tag) => !NATIVE_TAGS.has(tag) && tag !== 'A' && !el.hasAttribute('role')
    && !el.hasAttribute('tabindex') && !el.isContentEditable && el.hasAttribute('onclick');

  // Whether an element's text stands apart from its neighbours' rather than continuing their word.
  /** @type {(style: CSSStyleDeclaration) => boolean} */
  const setApart = (style) => style.display !== 'inline' || parseFloat(style.marginLeft) > 0
    || parseFloat(style.marginRight) > 0 || parseFloat(style.paddingLeft) > 0 || parseFloat(style.paddingRight) > 0;
  // Markup inside a word sits next to text ("y<b>A</b>"); two elements side by side are two pieces of a component
  // ("<span>Card title</span><span>More</span>"), set apart by styling more often than not.
  /** @type {(node: Node) => boolean} */
  const afterElement = (node) => !!node.previousSibling && node.previousSibling.nodeType === Node.ELEMENT_NODE;

  // A <label> whose control is on the page: its words go on the control's line (label=), not on a line of their own.
  /** @type {(el: El) => boolean} */
  const namesControl = (el) => el.tagName === 'LABEL' && !!el.control && el.control.getClientRects().length > 0;

  // Inline content that continues the sentence around it (a <label> that names no control reads as text:
  // "<label>Seats left:</label><span>7</span>").
  /** @type {(el: El, tag?: string) => boolean} */
  const isInline = (el, tag = el.tagName) => INLINE_TAGS.has(tag) || (tag === 'LABEL' && !namesControl(el));

  // Text of an element's subtree without the text of nested interactive elements (those get their own line):
  // {shown: what a person sees, named: its accessible name (hidden-but-announced text included), whole: its words
  // whatever the mouse is over or wherever it is (the pieces that split off under the mouse included, and words
  // however they are painted, coloured or clipped), which identify it}.
  // splits: the element is a clickable row, whose pieces drawn as controls of their own are listed apart (ownTarget).
  // An icon among the words is written as its name ("(disk icon) Save"); words of icons only are no words (shown
  // is '': the element is an icon, named by nameIcon).
  /**
   * @param {El} el
   * @returns {Words}
   */
  function labelOf(el, splits = false) {
    /** @type {string[]} */
    const shown = [];
    /** @type {string[]} */
    const named = [];
    /** @type {string[]} */
    const whole = [];
    let shownLength = 0;
    let namedLength = 0;
    let wholeLength = 0;
    let words = false;  // shown holds more than icons
    let added = 0;  // pieces seen, counted to tell an element that showed nothing
    let differs = false;  // whole is not what is shown
    /**
     * @param {string} text
     * @param {boolean} visible
     * @param {boolean} announced
     * @param {boolean} apart
     */
    const add = (text, visible, announced, apart, icon = false) => {
      differs ||= !visible || apart || icon;
      if (!icon && wholeLength < LABEL_MAX) {
        whole.push(text);
        wholeLength += text.length;
      }
      if (visible) added += 1;
      if (apart) return;
      if (announced && !icon && namedLength < LABEL_MAX) {
        named.push(text);
        namedLength += text.length;
      }
      if (visible) {
        shown.push(text);
        shownLength += text.length;
        words ||= !icon;
      }
    };
    // Pieces are glued as the page sets them ("y<b>A</b>" reads "yA"); a box, a margin or a space sets one apart.
    const gap = () => {
      shown.push(' ');
      named.push(' ');
      whole.push(' ');
    };
    const childrenOf = (/** @type {El} */ node) => (node.tagName === 'SLOT'
      && /** @type {HTMLSlotElement} */ (node).assignedNodes().length
      ? /** @type {HTMLSlotElement} */ (node).assignedNodes() : (node.shadowRoot || node).childNodes);
    // apart: inside a piece listed apart from the row (only its whole words count it).
    /**
     * @param {El} node
     * @param {boolean} visible
     * @param {boolean} announced
     * @param {boolean} apart
     */
    const walk = (node, visible, announced, apart) => {
      for (const one of childrenOf(node)) {
        if (shownLength >= LABEL_MAX) return;
        // Read as what its nodeType says it is.
        const child = /** @type {El} */ (one);
        if (one.nodeType === Node.TEXT_NODE) {
          const piece = /** @type {Text} */ (one);
          const text = piece.data.trim();
          const parent = /** @type {El} */ (piece.parentElement || node);
          if (!text) {
            if (piece.data) gap();  // "<b>Ada</b> <i>@ada</i>" is two words
          } else {
            add(piece.data, visible && !isClosedDetails(node) && styleOf(parent).visibility === 'visible'
              && textShows(piece, parent), announced, apart);
          }
        } else if (child.nodeType === Node.ELEMENT_NODE && child.tagName === 'BR') {
          gap();
        } else if (child.nodeType === Node.ELEMENT_NODE && !SKIP_TAGS.has(child.tagName) && !listedApart(child)) {
          const style = styleOf(child);
          if (style.display === 'none') continue;  // neither seen nor announced
          const split = apart || (splits && ownTarget(child, style));
          const tag = child.tagName;
          const gapped = tag === 'IMG' || afterElement(child) || setApart(style);
          if (gapped) gap();
          const told = announced && child.getAttribute('aria-hidden') !== 'true';
          const rect = child.getBoundingClientRect();
          const paint = paintOf(child, style, rect);
          const seen = visible && paint.alpha >= ALPHA_MIN && !(isClosedDetails(node) && tag !== 'SUMMARY');
          const before = added;
          if (tag === 'IMG') {
            if (child.alt) {
              add(child.alt, seen && style.visibility === 'visible' && shows(rect, intersect(paint.clip, page)), told,
                split);
            }
          } else if (!LIGATURE_SET.test(child.getAttribute('class') || '')) {
            walk(child, seen, told, split);
          }
          if (added === before && seen && style.visibility === 'visible' && isGlyph(child, rect)) {
            const icon = glyphName(child);
            if (icon) add(`(${icon} icon)`, true, told, split, true);
          }
          if (gapped) gap();
        }
      }
    };
    walk(el, true, true, false);
    const text = (/** @type {string[]} */ parts) => cut(clean(parts.join('')), LABEL_MAX);
    const seen = text(shown);
    return {shown: words ? seen : '', named: text(named), whole: differs ? text(whole) : seen};
  }

  // A box small enough to be an icon among words, with nothing to read inside: an image, an SVG, an empty element
  // (an icon font's <i>, a sprite's <span>) or an icon font's ligature.
  /**
   * @param {El} el
   * @param {DOMRect} rect
   */
  function isGlyph(el, rect) {
    if (rect.width > GLYPH_MAX || rect.height > GLYPH_MAX || rect.width < BOX_MIN || rect.height < BOX_MIN) return false;
    const tag = el.tagName;
    return tag === 'IMG' || tag === 'svg' || LIGATURE_SET.test(el.getAttribute('class') || '')
      || (!el.firstElementChild && el.hasAttributes() && !el.textContent.trim());
  }

  // Direct text of a non-interactive element plus its inline formatting children: one readable sentence, of the
  // pieces a person can see.
  /** @param {El} el */
  function ownText(el) {
    if (isClosedDetails(el)) return '';
    if (namesControl(el)) return '';
    let text = '';
    // A block child only separates words: one space stands for a run of them (a page's body has thousands).
    let gap = false;
    for (let one = el.firstChild; one; one = one.nextSibling) {
      const type = one.nodeType;
      // Read as what its nodeType says it is.
      const child = /** @type {El} */ (one);
      const tag = type === Node.ELEMENT_NODE ? child.tagName : '';
      if (type === Node.TEXT_NODE) {
        const piece = /** @type {Text} */ (one);
        if (piece.data.trim() && textShows(piece, el)) {
          text += gap ? ` ${piece.data}` : piece.data;
          gap = false;
        } else {
          gap = true;
        }
      } else if (tag && isInline(child, tag) && !ownsLine(child, tag, el)) {
        // Glued as the page sets them; a styled piece with a margin ("Phone" + "optional") and a caption
        // ("Seats left:" + "7") are set apart.
        const piece = inlineText(child);
        const apart = tag === 'LABEL' || afterElement(child) || setApart(styleOf(child));
        text += apart ? ` ${piece} ` : (gap ? ` ${piece}` : piece);
        gap = false;
      } else if ((tag === 'IMG' || tag === 'svg') && glyphText(child)) {
        text += ` ${glyphText(child)} `;  // an icon in a sentence ("Press (trash icon) to throw it away")
        gap = false;
      } else {
        gap = true;
      }
    }
    return clean(text);
  }

  // The visible text of an inline element; a <br> still separates words ("demo1234<br>Any" is not "demo1234Any").
  // An icon in it is written as its name.
  /**
   * @param {El} el
   * @returns {string}
   */
  function inlineText(el) {
    if (styleOf(el).display === 'none' || paintOf(el).alpha < ALPHA_MIN) return '';
    if (LIGATURE_SET.test(el.getAttribute('class') || '')) return ` ${glyphText(el)} `;
    let text = '';
    for (let one = el.firstChild; one; one = one.nextSibling) {
      if (one.nodeType === Node.TEXT_NODE) {
        const piece = /** @type {Text} */ (one);
        text += piece.data.trim() && textShows(piece, el) ? piece.data : ' ';
      } else if (one.nodeType === Node.ELEMENT_NODE) {
        const child = /** @type {El} */ (one);
        // A nested control has its own line; a <br> still separates words.
        const tag = child.tagName;
        const own = tag === 'BR' || SKIP_TAGS.has(tag) || namesControl(child) || ownsLine(child, tag, el);
        let piece = own ? ' ' : inlineText(child);
        if (!own && !piece.trim()) piece = ` ${glyphText(child)} `;
        text += afterElement(child) ? ` ${piece}` : piece;
      }
    }
    return text;
  }

  // An element inside words that is listed on a line of its own: a control, or where a pointer starts.
  /** @type {(el: El, tag: string, parent: El) => boolean} */
  const ownsLine = (el, tag, parent) => listedApart(el, tag) || pointerOnHover(el)
    || (styleOf(el).cursor === 'pointer' && styleOf(parent).cursor !== 'pointer');

  // An icon among words as they are written: an image's alt text, else "(name icon)"; '' when it is none, is not
  // seen, or nothing names it.
  /** @param {El} el */
  function glyphText(el) {
    const rect = el.getBoundingClientRect();
    const style = styleOf(el);
    const paint = paintOf(el, style, rect);
    if (style.visibility !== 'visible' || paint.alpha < ALPHA_MIN || !shows(rect, intersect(paint.clip, page))) {
      return '';
    }
    if (el.tagName === 'IMG' && el.alt) return clean(el.alt);
    const name = isGlyph(el, rect) ? glyphName(el) : null;
    return name ? `(${name} icon)` : '';
  }

  // Where a handler set by a script, not the markup, makes an element a control.
  /** @param {El} el */
  function scripted(el) {
    for (const name of HANDLERS) if (el[name] != null) return true;
    return false;
  }

  // A lone symbol a person reads as a button ("+", "×", "☆"), not a word of a sentence ("5 + 2").
  /** @param {El} el */
  function isSymbolControl(el) {
    const only = /** @type {Text | null} */ (el.firstChild);  // a text, or else no symbol
    if (!only || only !== el.lastChild || only.nodeType !== Node.TEXT_NODE || only.data.length > 8
      || !SYMBOLS.has(only.data.trim())) {
      return false;
    }
    const words = (/** @type {Node | null} */ n) => !!n && n.nodeType === Node.TEXT_NODE
      && /** @type {Text} */ (n).data.trim() !== '';
    return !(words(el.previousSibling) && words(el.nextSibling));
  }

  // Listed on its own, so its words are not its container's: a control, or what a script made one.
  const listedApart = (/** @type {El} */ el, tag = el.tagName) => isCheapInteractive(el, tag) || isSymbolControl(el)
    || (el.childElementCount <= 1 && !LIST_TAGS.has(tag) && scripted(el));

  // What a form control is called on screen: aria-labelledby, else its <label>s. Native controls have no text of
  // their own, and a field's label usually sits on another line, so the model could not tell fields apart. A hidden
  // label names only what nothing visible names (``unnamed``): it never renames a button that reads otherwise.
  /**
   * @param {El} el
   * @param {boolean} unnamed
   */
  function controlLabel(el, unnamed) {
    const ids = el.getAttribute('aria-labelledby');
    /** @type {El[]} */
    let parts = [];
    if (ids) {
      // A document or a shadow root (an element outside the document is its own root, without ids to look up).
      const root = /** @type {Node & Partial<Pick<Document, 'getElementById'>>} */ (el.getRootNode());
      parts = /** @type {El[]} */ (ids.split(/\s+/).map((id) => (root.getElementById ? root.getElementById(id) : null)
        || document.getElementById(id)).filter(Boolean));
    } else if (el.labels) {
      parts = Array.from(el.labels);
    }
    const words = parts.map((label) => {
      const {shown, named} = labelOf(label);
      return shown || (unnamed ? named : '');  // a visually hidden <label> still names its field
    });
    const text = clean(words.join(' '));
    return text ? cut(text, VALUE_MAX) : null;
  }

  // Parsing a URL costs more than the rest of a link's line: the short form is kept per document address and base.
  const HREFS_MAX = 5000;
  function hrefCache() {
    const key = `${location.href}\n${document.baseURI}`;
    if (!state.hrefs || state.hrefs.key !== key || state.hrefs.map.size > HREFS_MAX) {
      state.hrefs = {key, map: /** @type {Map<string, string | null>} */ (new Map())};
    }
    return state.hrefs.map;
  }
  let hrefs = hrefCache();

  /** @param {El} el */
  function shortHref(el) {
    const raw = el.getAttribute('href');
    if (!raw || raw.startsWith('javascript:')) return null;
    let short = hrefs.get(raw);
    if (short === undefined) {
      short = parseHref(raw);
      hrefs.set(raw, short);
    }
    return short;
  }

  /**
   * @param {string} raw
   * @returns {string | null}
   */
  function parseHref(raw) {
    let url;
    try {
      url = new URL(raw, document.baseURI);
    } catch (e) {
      return cut(raw, VALUE_MAX);
    }
    // Generated addresses say nothing to the model and change on every visit.
    if (url.protocol === 'data:' || url.protocol === 'blob:') return `${url.protocol}…`;
    const local = url.origin === location.origin;
    // "#" and "#top" on this very page lead nowhere new (the page's own path would be noise): only a named fragment
    // says where it goes.
    if (local && url.pathname === location.pathname && url.search === location.search) {
      return url.hash.length > 1 ? cutMiddle(url.hash, VALUE_MAX) : null;
    }
    // Same-origin links by their path: the page's origin is on the "Current page" line already.
    const text = (local ? '' : url.host.replace(/^www\./, '')) + url.pathname + url.search;
    return cutMiddle(text, VALUE_MAX);
  }

  // Long addresses differ at their end (an id, a page number) as often as at their start: keep both.
  /**
   * @param {string} s
   * @param {number} max
   */
  function cutMiddle(s, max) {
    if (s.length <= max) return s;
    const tail = Math.floor(max / 3);
    return `${s.slice(0, max - tail - 1)}…${s.slice(s.length - tail)}`;
  }

  /**
   * @param {El} el
   * @param {CSSStyleDeclaration} style
   */
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

  // Options as a line says them: the first few, and how many more (null for none).
  /** @param {string[]} names */
  function optionList(names) {
    const named = names.filter(Boolean);
    if (!named.length) return null;
    const shown = named.slice(0, OPTIONS_MAX).join('|');
    return named.length > OPTIONS_MAX ? `${shown}|…${named.length - OPTIONS_MAX} more` : shown;
  }

  // name: the accessible name that names the element when nothing visible does (an icon button's sr-only text);
  // shown: its visible words.
  /**
   * @param {El} el
   * @param {string} tag
   * @param {string | null} scroll
   * @param {string} name
   * @param {string} shown
   */
  function attributesOf(el, tag, scroll, name, shown) {
    /** @type {[string, string][]} */
    const attrs = [];
    /** @type {AddAttribute} */
    const add = (name, value) => {
      if (value === null || value === undefined || value === false) return;
      attrs.push([name, value === true ? '' : String(value)]);
    };
    const get = (/** @type {string} */ name) => {
      const v = el.getAttribute(name);
      return v === null || v === '' ? null : cut(clean(v), VALUE_MAX);
    };
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || el.hasAttribute('aria-labelledby')) {
      const label = controlLabel(el, !shown);
      if (label && label !== get('aria-label') && label !== get('placeholder')) add('label', label);
    }
    if (tag === 'INPUT') {
      const input = /** @type {HTMLInputElement} */ (el);  // the tag says it is one
      const type = input.type;
      add('type', type);
      add('name', get('name'));
      add('placeholder', get('placeholder'));
      const secretField = type !== 'password' && SECRET_AUTOCOMPLETE.test(get('autocomplete') || '');
      if (secretField) add('autocomplete', get('autocomplete'));
      if (type === 'password' || secretField) {
        add('value', input.value ? '••••' : null);  // never the secret itself
      } else if (type === 'checkbox' || type === 'radio') {
        add('checked', input.checked);
      } else if (type === 'file') {
        add('accept', get('accept'));
        const names = input.files ? Array.from(input.files, (f) => f.name).join(', ') : '';
        add('value', names ? cut(names, VALUE_MAX) : null);
      } else if (TEXT_INPUT_TYPES.has(type) || !type) {
        add('value', input.value ? cut(input.value, VALUE_MAX) : null);
        // A datalist's suggestions are drawn outside the page, where no look reaches: the line says them.
        if (input.list) {
          add('options', optionList(Array.from(input.list.options, (o) => (o.disabled ? '' : clean(o.value)))));
        }
      } else if (type === 'submit' || type === 'button' || type === 'reset') {
        add('value', get('value'));
      }
    } else if (tag === 'TEXTAREA') {
      const area = /** @type {HTMLTextAreaElement} */ (el);
      add('name', get('name'));
      add('placeholder', get('placeholder'));
      add('value', area.value ? cut(clean(area.value), VALUE_MAX) : null);
    } else if (tag === 'SELECT') {
      const select = /** @type {HTMLSelectElement} */ (el);
      add('name', get('name'));
      const chosen = select.selectedOptions;
      const chosenText = chosen ? Array.from(chosen, (o) => clean(o.text)).join(', ') : '';
      add('value', chosenText ? cut(chosenText, VALUE_MAX) : null);
      // What the picker shows a person: Chromium leaves out hidden options, and options styled display: none.
      add('options', optionList(Array.from(select.options,
        (o) => (o.hidden || styleOf(o).display === 'none' ? '' : clean(o.text)))));
      add('multiple', select.multiple);
    } else if (tag === 'A') {
      add('href', shortHref(el));
    } else if (tag === 'BUTTON') {
      const type = el.getAttribute('type');
      if (type && type !== 'submit') add('type', type);
    }
    const role = el.getAttribute('role');
    if (role) add('role', role);
    if (role === 'treeitem') treeAttrs(el, add);
    add('aria-label', get('aria-label') || (name && !get('title') ? name : null));
    for (const attr of ['title', 'alt', 'aria-expanded', 'aria-haspopup', 'aria-checked', 'aria-selected',
      'aria-pressed', 'aria-valuenow']) {
      add(attr, get(attr));
    }
    if (el.isContentEditable && !NATIVE_TAGS.has(tag)) add('contenteditable', true);
    add('required', el.required === true || el.getAttribute('aria-required') === 'true');
    add('disabled', el.disabled === true || el.getAttribute('aria-disabled') === 'true');
    add('readonly', el.readOnly === true);
    add('scrollable', scroll);
    return attrs;
  }

  // An element's line as the model reads it: its tag, visible text (else its accessible name) and attributes.
  /**
   * @param {El} el
   * @param {string} tag
   * @param {CSSStyleDeclaration} style
   * @returns {ElementItem}
   */
  function itemOf(el, tag, style) {
    const {shown, named, whole} = NATIVE_TAGS.has(tag) && tag !== 'BUTTON' && tag !== 'SUMMARY'
      ? {shown: '', named: '', whole: ''} : labelOf(el, !isControl(el, tag));
    const said = shown.toLowerCase();
    // A tooltip or name that repeats the visible text says nothing more.
    const attrs = attributesOf(el, tag, scrollInfo(el, style), shown ? '' : named, shown)
      .filter(([name, value]) => !((name === 'title' || name === 'aria-label') && value.toLowerCase() === said));
    /** @type {ElementItem} */
    const item = {kind: 'el', depth: 0, ref: -1, tag: tag.toLowerCase(), attrs, text: shown, isNew: false};
    // What identifies it, when that is not what it shows: its words whatever the mouse is over or wherever it is
    // scrolled, without its icons, which hovering may change (a row's pieces drawn apart, a star filled in).
    if (whole !== shown) item.key = whole;
    return item;
  }

  // Parallel to items: the element an 'el' item stands for.
  /** @type {(El | undefined)[]} */
  const owners = [];
  let listedCount = 0;  // 'el' items pushed so far

  /**
   * @param {Item} item
   * @param {El} [owner]  the element an 'el' item stands for
   */
  function push(item, owner) {
    if (items.length >= ITEMS_MAX) {
      truncated = true;
      return false;
    }
    items.push(item);
    owners.push(owner);
    if (item.kind === 'el') listedCount += 1;
    return true;
  }

  // A wrapper with no words of its own around exactly one listed element (<li role=tab><a>Prices</a></li>), or
  // whose words are all its first listed element's (a tree item and its clickable name), is one target: the inner
  // element is listed, carrying the wrapper's role and state. A wrapper with neither words nor attributes around
  // several listed elements (a toolbar) says nothing they do not: it is left out. Returns whether it merged.
  const STATE_ATTRS = ['role', 'level', 'children', 'aria-selected', 'aria-expanded', 'aria-checked', 'aria-pressed',
    'aria-haspopup'];
  // count: the listed elements inside it.
  /**
   * @param {number} outer
   * @param {number} count
   */
  function mergeWrapper(outer, count) {
    const wrapper = /** @type {ElementItem} */ (items[outer]);
    if (count === 0 || wrapper.attrs.some(([name]) => name === 'scrollable' || name === 'aria-label')) return false;
    if (NATIVE_TAGS.has(wrapper.tag.toUpperCase())) return false;
    let inner = outer + 1;
    while (items[inner].kind !== 'el') inner++;
    const first = /** @type {ElementItem} */ (items[inner]);
    if (!wrapper.text && count > 1) {
      if (wrapper.attrs.length) return false;
      merged.add(outer);
      return true;
    }
    const only = wrapper.text ? inner === outer + 1 && first.text === wrapper.text : count === 1;
    if (!only || !first.text) return false;
    const names = new Set(first.attrs.map(([name]) => name));
    for (const attr of wrapper.attrs) {
      if (STATE_ATTRS.includes(attr[0]) && !names.has(attr[0])) first.attrs.push(attr);
    }
    merged.add(outer);
    return true;
  }

  // A control whose visible <label> names it.
  /** @type {(el: El) => boolean} */
  const hasShownLabel = (el) => !!el.labels && Array.from(el.labels, (label) => labelOf(label).shown).some(Boolean);

  // A link, a button or the like: what is inside it is part of it, not a target of its own.
  /**
   * @param {El} el
   * @param {string} tag
   */
  function isControl(el, tag) {
    const role = el.getAttribute('role');
    return CONTROL_TAGS.has(tag) || NATIVE_TAGS.has(tag) || role === 'button' || role === 'link';
  }

  // An icon that names itself (aria-label or title) and shows at most a ligature word of text ("star").
  /** @param {El} el */
  function isNamedIcon(el) {
    if (!el.getAttribute('aria-label') && !el.getAttribute('title')) return false;
    const text = el.textContent.trim();
    return text.length <= 20 && !/\s/.test(text);
  }

  // A pointer that shows only under the mouse (`.icon:hover {cursor: pointer}`).
  const pointerOnHover = (/** @type {El} */ el) => hover.pointer !== '' && el.matches(hover.pointer);

  // A piece of a clickable container that a person sees as a control of its own: it reacts to the mouse by itself,
  // it is drawn as a button (padded, with a border or a background), or it is one of the short captions of a bar,
  // set apart from the next; and it has words.
  /**
   * @param {El} el
   * @param {CSSStyleDeclaration} style
   */
  function standsApart(el, style) {
    if (!el.firstChild || !el.textContent.trim()) return false;
    if (hover.styled !== '' && el.matches(hover.styled)) return true;
    const background = rgba(style.backgroundColor);
    if (parseFloat(style.paddingLeft) > 0
      && (parseFloat(style.borderLeftWidth) > 0 || (background !== null && background[3] >= 0.5))) {
      return true;
    }
    return isCaptionBar(el.parentElement);
  }

  // Where the pointer starts on an element with no handler in its markup, no words of its own and two or more short
  // captions set apart ("Reply" "Forward", not "<b>Par</b><span>is</span>"): a person reads each caption as a
  // button. An item of a list or a table is one target however its words are laid out.
  const CAPTION_MAX = 24;
  const BAR_EXCLUDED = new Set(['LI', 'TR', 'TD', 'TH', 'DT', 'DD']);
  /** @type {Map<Element, boolean>} */
  const bars = new Map();
  /** @param {El | null} bar */
  function isCaptionBar(bar) {
    if (!bar) return false;
    let answer = bars.get(bar);
    if (answer === undefined) {
      answer = readsAsCaptionBar(bar);
      bars.set(bar, answer);
    }
    return answer;
  }

  /** @param {El} bar */
  function readsAsCaptionBar(bar) {
    if (BAR_EXCLUDED.has(bar.tagName) || isCheapInteractive(bar, bar.tagName) || styleOf(bar).cursor !== 'pointer') {
      return false;
    }
    const outer = bar.parentElement;
    if (outer && styleOf(outer).cursor === 'pointer') return false;
    let captions = 0;
    let glued = false;  // the last caption ends where the next starts, with no space or box between
    for (let one = bar.firstChild; one; one = one.nextSibling) {
      if (one.nodeType === Node.TEXT_NODE) {
        if (/** @type {Text} */ (one).data.trim()) return false;
        glued = false;
        continue;
      }
      if (one.nodeType !== Node.ELEMENT_NODE) continue;
      const n = /** @type {El} */ (one);
      const text = n.textContent.trim();
      if (!text) continue;  // an icon
      if (text.length > CAPTION_MAX || text.split(/\s+/).length > 3) return false;
      const apart = setApart(styleOf(n));
      if (glued && !apart) return false;
      glued = !apart;
      captions += 1;
    }
    return captions >= 2;
  }

  // Inside a clickable row (not a link or a button), a child listed as its own target, whose words are not the row's.
  /** @type {(el: El, style: CSSStyleDeclaration) => boolean} */
  const ownTarget = (el, style) => pointerOnHover(el) || (style.cursor === 'pointer' && standsApart(el, style));

  // An element listed with nothing naming it (no words, no label, no tooltip) is an icon: named by what its class,
  // symbol, image or tooltip says, else said to be unnamed and where it is. Not a group of other listed elements.
  const NAME_KEYS = new Set(['aria-label', 'title', 'alt', 'label', 'placeholder', 'value']);
  /**
   * @param {El} el
   * @param {ElementItem} item
   */
  function nameIcon(el, item) {
    if (item.text || (NATIVE_TAGS.has(el.tagName) && el.tagName !== 'BUTTON')
        || item.attrs.some(([key]) => NAME_KEYS.has(key))) {
      return;
    }
    const icon = iconName(el);
    item.attrs.push(['icon', icon ? cut(icon, VALUE_MAX) : 'unnamed']);
    if (!icon) item.attrs.push(['at', placeOf(el)]);
  }

  // What names a listed icon that has no words: what names the parts a person sees of it (glyphName), what its
  // image is painted from (its content or a background, its ::before's and ::after's), a tooltip on a box around it
  // that holds nothing else, the one word of its class or id that is not about looks ("star sprite"). Null when
  // nothing does.
  /**
   * @param {El} el
   * @returns {string | null}
   */
  function iconName(el) {
    const parts = [el];
    for (const n of /** @type {HTMLCollectionOf<El>} */ (el.getElementsByTagName('*'))) {
      if (parts.length >= ICON_PARTS_MAX) break;
      if (n.tagName === 'title' || (n.getClientRects().length && styleOf(n).visibility === 'visible'
        && paintOf(n).alpha >= ALPHA_MIN)) {
        parts.push(n);
      }
    }
    const named = glyphName(el, parts);
    if (named) return named;
    for (const n of parts) {
      for (const pseudo of ['::before', '::after']) {
        const style = getComputedStyle(n, pseudo);
        const name = paintedName(`${style.content} ${style.backgroundImage}`);
        if (name) return name;
      }
    }
    for (let n = composedParent(el), up = 0; n && up < 3 && !n.textContent.trim(); n = composedParent(n), up++) {
      if (n.childElementCount !== 1) break;
      const tip = tooltipOf(n);
      if (tip) return tip;
    }
    for (const n of parts) {
      const name = wordOf(n);
      if (name) return name;
    }
    return null;
  }

  // What names an icon by itself or by its parts (the element and, by default, its descendants): a tooltip, an SVG's
  // <title>, a sprite's symbol, an icon font's class or ligature, an image's file, its content or background image.
  /**
   * @param {El} el
   * @param {El[]} [parts]
   * @returns {string | null}
   */
  function glyphName(el, parts = el.firstElementChild
    ? [el, .../** @type {HTMLCollectionOf<El>} */ (el.getElementsByTagName('*'))].slice(0, ICON_PARTS_MAX) : [el]) {
    for (const n of parts) {
      const tip = tooltipOf(n);
      if (tip) return tip;
    }
    for (const n of parts) {
      if (n.tagName === 'title' && n.textContent.trim()) return clean(n.textContent);
    }
    for (const n of parts) {
      const name = n.tagName === 'use' ? useName(n) : n.tagName === 'IMG' ? plainName(fileName(n.getAttribute('src')))
        : LIGATURE_SET.test(n.getAttribute('class') || '') ? clean(n.textContent).replace(/_/g, ' ') : classIcon(n);
      if (name) return name;
    }
    for (const n of parts) {
      const style = styleOf(n);
      const name = paintedName(`${style.content} ${style.backgroundImage}`);
      if (name) return name;
    }
    return null;
  }

  /** @param {El} n */
  function tooltipOf(n) {
    for (const attr of TOOLTIP_ATTRS) {
      const value = n.getAttribute(attr);
      if (value && value.trim()) return clean(value);
    }
    return null;
  }

  // The name of the image a style paints (`content: url(...)`, `background-image`): its file's, in plain words.
  const paintedName = (/** @type {string} */ css) => plainName(fileName((/url\("?([^")]*)/.exec(css) || [])[1]));

  /** @param {El} use */
  function useName(use) {
    const href = use.getAttribute('href') || use.getAttribute('xlink:href') || '';
    const id = href.slice(href.indexOf('#') + 1);
    if (!id) return null;
    const m = ICON_CLASS.exec(id);
    return m ? m[1] : id;
  }

  /** @param {El} n */
  function classIcon(n) {
    const tokens = typeof n.className === 'string' ? n.className.split(/\s+/) : Array.from(n.classList);
    let afterSet = false;
    for (const token of tokens) {
      const m = ICON_CLASS.exec(token);
      if (m && !ICON_MODIFIER.test(m[1]) && !ICON_SET.test(token)) return m[1].replace(/[-_]/g, ' ');
      if (ICON_SET.test(token)) afterSet = true;
      else if (afterSet && token && !ICON_MODIFIER.test(token)) return token;
    }
    return null;
  }

  /** @param {string | null | undefined} src */
  function fileName(src) {
    if (!src || src.startsWith('data:')) return null;
    const m = /([^/?#]+?)(?:\.\w{2,4})?(?:[?#].*)?$/.exec(src);
    return m ? m[1] : null;
  }

  // A class, an id or a file name in plain words, without those about looks, sizes or generated ones ("btn_reply@2x"
  // -> "reply"); null when none is left.
  /**
   * @param {string | null} name
   * @returns {string | null}
   */
  function plainName(name) {
    if (!name || PLAIN_PREFIX.test(name)) return null;
    const words = name.split(/[-_@.\s]+/).filter((w) => !/\d/.test(w) && !ICON_MODIFIER.test(w)
      && !ICON_SET.test(w) && !PLAIN_WORDS.has(w.toLowerCase()));
    return words.length && words.every((w) => /^\p{L}{2,}$/u.test(w)) ? words.join(' ') : null;
  }

  // The one word of an element's class or id that is not about how it looks ("star sprite" -> star); null when there
  // is none, or more than one.
  /** @param {El} n */
  function wordOf(n) {
    const tokens = typeof n.className === 'string' ? n.className.split(/\s+/) : Array.from(n.classList);
    const found = new Set([...tokens, n.id].map(plainName).filter(Boolean));
    return found.size === 1 ? found.values().next().value : null;
  }

  // Where an unnamed icon is, in thirds of the card it belongs to (the nearest box around it with words in it), else
  // of the viewport.
  /** @param {El} el */
  function placeOf(el) {
    let card = null;
    for (let n = composedParent(el), up = 0; n && up < CARD_DEPTH && n !== document.body; n = composedParent(n), up++) {
      if (n.textContent.trim()) {
        card = n;
        break;
      }
    }
    const box = card ? card.getBoundingClientRect() : {left: 0, top: 0, right: vw, bottom: vh};
    const rect = el.getBoundingClientRect();
    const x = ((rect.left + rect.right) / 2 - box.left) / Math.max(box.right - box.left, 1);
    const y = ((rect.top + rect.bottom) / 2 - box.top) / Math.max(box.bottom - box.top, 1);
    const row = y < 1 / 3 ? 'top' : y < 2 / 3 ? 'middle' : 'bottom';
    const column = x < 1 / 3 ? 'left' : x < 2 / 3 ? 'centre' : 'right';
    const place = row === 'middle' && column === 'centre' ? 'centre' : `${row} ${column}`;
    return card ? `${place} of its card` : place;
  }

  // A tree item's level and how many items it holds (a folder), as a person sees them in the tree's indentation.
  /**
   * @param {El} el
   * @param {AddAttribute} add
   */
  function treeAttrs(el, add) {
    let level = parseInt(el.getAttribute('aria-level') || '', 10);
    if (!(level > 0)) {
      level = 1;
      for (let n = el.parentElement; n; n = n.parentElement) if (n.getAttribute('role') === 'treeitem') level += 1;
    }
    add('level', level);
    let children = 0;
    for (const n of el.querySelectorAll('[role=treeitem]')) {
      if (/** @type {Element} */ (n.parentElement).closest('[role=treeitem]') === el) children += 1;
    }
    add('children', children || null);
  }

  // A tree drawn as nested lists without ARIA roles (older widget libraries): the element that names an entry (its
  // first one with words) says whether the entry is a file or a folder, open or closed, and its level, as the
  // nesting shows them. A list is a tree when it says so (tree, folder, file) or lays a nested list out in its flow.
  /** @type {Map<Element, boolean>} */
  const treeRoots = new Map();
  const ROLE_TREES = '[role=tree], [role=treeitem], [role=group], [role=menu], [role=menubar], [role=listbox]';
  /**
   * @param {ElementItem} item
   * @param {El} el
   * @param {Set<Element>} named  the list items whose name was told
   */
  function plainTreeItem(item, el, named) {
    const li = /** @type {El | null} */ (el.closest('li'));
    if (!li || named.has(li) || (!item.text && el !== li) || li.closest(ROLE_TREES)) return;
    const list = li.parentElement;
    const sub = Array.from(li.children).find((c) => c.tagName === 'UL' || c.tagName === 'OL');
    const outer = list && list.parentElement && list.parentElement.tagName === 'LI' ? list.parentElement : null;
    if (!list || (list.tagName !== 'UL' && list.tagName !== 'OL')) return;
    // A flat list is no tree: an entry of the top level is one only in a list already known as one (a long flat
    // list, an index, is not searched for nesting).
    if (!sub && !outer && treeRoots.get(list) !== true) return;
    let level = 1;
    let root = list;
    for (let n = outer; n && n.parentElement; n = n.parentElement.parentElement) {
      if (n.tagName !== 'LI') break;
      level += 1;
      root = n.parentElement;
    }
    if (!isTreeRoot(root)) return;
    named.add(li);
    const open = !!sub && styleOf(sub).display !== 'none' && sub.getClientRects().length > 0;
    item.attrs.push(['tree', sub ? `${open ? 'open' : 'closed'} folder` : 'file'], ['level', String(level)]);
    if (sub) item.attrs.push(['children', String(sub.children.length)]);
  }

  const NESTED_LISTS_MAX = 50;
  /** @param {Element} root */
  function isTreeRoot(root) {
    let answer = treeRoots.get(root);
    if (answer === undefined) {
      const nested = root.querySelectorAll('li > ul, li > ol');
      answer = nested.length > 0 && /tree|folder|file/i.test(`${root.getAttribute('class') || ''} ${root.id}`);
      for (let i = 0; !answer && i < Math.min(nested.length, NESTED_LISTS_MAX); i++) {
        const style = styleOf(nested[i]);
        answer = style.display !== 'none' && (style.position === 'static' || style.position === 'relative')
          && nested[i].getClientRects().length > 0;
      }
      treeRoots.set(root, answer);
    }
    return answer;
  }

  // The field the agent typed into last (controller.py), when it is in this document: a list that shows right
  // under it is its suggestions, whose items are choices whatever their cursor.
  const typed = state.typed && state.typed.isConnected && state.typed.ownerDocument === document ? state.typed : null;
  const typedRect = typed ? typed.getBoundingClientRect() : null;
  /**
   * @param {El} el
   * @param {string} tag
   * @param {CSSStyleDeclaration} style
   * @param {DOMRect} rect
   */
  function isSuggestions(el, tag, style, rect) {
    if (!typedRect || el === typed || el.contains(typed)) return false;
    const role = el.getAttribute('role');
    const overlay = style.position === 'absolute' || style.position === 'fixed';
    if (!overlay && tag !== 'UL' && tag !== 'OL' && role !== 'listbox' && role !== 'menu') return false;
    const gap = rect.top - typedRect.bottom;
    const overlap = Math.min(rect.right, typedRect.right) - Math.max(rect.left, typedRect.left);
    return gap >= -4 && gap <= Math.max(16, typedRect.height) && overlap > Math.min(rect.width, typedRect.width) / 2;
  }

  // An item of the suggestions under the field typed into: a list item or option, or a child of the list itself.
  /** @type {(el: El, tag: string, list: El) => boolean} */
  const isChoice = (el, tag, list) => tag === 'LI' || el.getAttribute('role') === 'option'
    || (el.parentElement === list && !LIST_TAGS.has(tag));

  // ctx: {depth, parentPointer (true/false/undefined when the parent's style was not read), inInteractive,
  //       inText (the parent's line already carries this inline element's text),
  //       inRow (the nearest listed ancestor is a clickable container, inside which an icon can be a target)}
  // What this element paints in is read from its parent's paint context (paintOf), which the walk has already
  // computed for any parent inside the region.
  /**
   * @param {Element} node
   * @param {Context} ctx
   */
  function visit(node, ctx) {
    const el = /** @type {El} */ (node);
    const tag = el.tagName;
    if (SKIP_TAGS.has(tag)) return;
    if (tag === SKIP) {
      // Transparent: its own box is not the page's, but anything a page put inside it is still seen.
      visitChildren(el, tag, ctx);
      return;
    }
    const rect = el.getBoundingClientRect();
    // Each read of a DOMRect field is a call into the browser: the edges are read once.
    const top = rect.top;
    const bottom = rect.bottom;
    const left = rect.left;
    const right = rect.right;
    const hasBox = right > left && bottom > top;
    const first = visited++;
    let box = null;
    if (hasBox && bottom > 0 && top < vh && right > 0 && left < vw) {
      box = {el, rect, first, last: first};
      onScreen.push(box);
    }
    const inRegion = hasBox && bottom >= region.top && top <= region.bottom && right >= region.left
      && left <= region.right;
    const cheap = isCheapInteractive(el, tag);
    if (!inRegion) {
      // Most elements of a long page: nothing of their own is listed, but their children are still visited (a
      // positioned or overflowing descendant can be in the region while its ancestor is not).
      if (cheap && hasBox && (bottom < region.top || top > region.bottom)) {
        // Remembered even out of the region so that scrolling does not make old elements look new.
        state.known.add(el);
      }
      if (el.firstElementChild || tag === 'SLOT' || el.shadowRoot) {
        // The context only changes where this element starts an interactive or inline-text run; else it is shared.
        const inInteractive = ctx.inInteractive || cheap;
        const inText = ctx.inText && isInline(el, tag);
        const lines = ctx.lines && !cheap;
        const same = ctx.parentPointer === undefined && inInteractive === ctx.inInteractive && inText === ctx.inText
          && lines === ctx.lines;
        visitChildren(el, tag, same ? ctx : {depth: ctx.depth, parentPointer: undefined, inInteractive, inText,
          inRow: ctx.inRow, choices: ctx.choices, lines});
      }
      if (box) box.last = visited - 1;
      return;
    }

    visitInRegion(el, tag, ctx, rect, box, cheap);
  }

  // An element inside the region: listed, or written as text, and its children visited (kept apart from visit,
  // whose short path every element of a long page takes).
  /**
   * @param {El} el
   * @param {string} tag
   * @param {Context} ctx
   * @param {DOMRect} rect
   * @param {Box | null} box
   * @param {boolean} cheap
   */
  function visitInRegion(el, tag, ctx, rect, box, cheap) {
    const style = styleOf(el);
    if (style.display === 'none') return;
    const paint = paintOf(el, style, rect);
    // Nothing inside can show through; but a transparent control that a visible label stands for (Bootstrap's
    // custom file input) is what a click on that label reaches.
    if (paint.alpha < ALPHA_MIN && !(tag === 'INPUT' && hasShownLabel(el))) return;
    const pointer = style.cursor === 'pointer';
    const seen = style.visibility === 'visible' && shows(rect, paint.clip);
    let listed = false;
    let lines = false;  // its words are written on lines of their own inside it
    let wroteText = false;
    let waiting = null;
    let own = -1;  // this element's item, when listed
    let listedBefore = 0;  // listedCount once it was listed: more after its children means it holds listed elements
    if (seen) {
      if (FRAME_TAGS.has(tag)) {
        frameSlot(el, rect, ctx.depth, box);
        return;
      }
      let parentPointer = ctx.parentPointer;
      if (parentPointer === undefined) {
        const parent = el.parentElement;
        parentPointer = !!parent && styleOf(parent).cursor === 'pointer';
      }
      const scroll = scrollInfo(el, style);
      // A pointer cursor is inherited: only the element where it starts is the clickable one, unless it is a list's
      // (its items are), or it is an icon with a name of its own inside a clickable row (a star, a bin).
      const startsPointer = pointer && !parentPointer && tag !== 'BODY' && tag !== 'HTML' && !LIST_TAGS.has(tag);
      const icon = pointer && parentPointer && ctx.inRow && isNamedIcon(el);
      // A pointer shown only under the mouse; a piece of a clickable row drawn as a control of its own; an item of
      // the suggestions under the field just typed into.
      const hovered = !pointer && (!ctx.inInteractive || ctx.inRow) && pointerOnHover(el);
      const apart = pointer && parentPointer && ctx.inRow && standsApart(el, style);
      const choice = ctx.choices !== null && isChoice(el, tag, ctx.choices) && el.textContent.trim() !== '';
      // What a script made a control, outside any other: a handler set as a property on an element that holds at
      // most one other (a list or a page that hands its clicks on to its items is none), a lone "+" or "×".
      const outside = !ctx.inInteractive || ctx.inRow;
      const handler = !cheap && outside && el.childElementCount <= 1 && !LIST_TAGS.has(tag) && tag !== 'BODY'
        && tag !== 'HTML' && scripted(el);
      const symbol = !cheap && !handler && outside && isSymbolControl(el);
      const clickable = startsPointer || icon || hovered || apart || choice || handler || symbol;
      if (cheap || clickable || scroll !== null) {
        const item = itemOf(el, tag, style);
        item.depth = ctx.depth;
        item.isNew = markNew && !state.known.has(el);
        // Why it is listed when nothing a person sees says it is a control (no pointer, nothing in its markup): a
        // click handler, or a symbol that reads as a button.
        const why = pointer ? null : handler || (cheap && onlyHandler(el, tag)) ? 'handler' : symbol ? 'symbol' : null;
        if (why) item.attrs.push(['clickable', why]);
        if (!push(item, el)) return;
        listed = true;
        own = items.length - 1;
        listedBefore = listedCount;
        if (box) waiting = {box, item: items.length - 1, end: 0, opaqueOnly: false};
        // A box listed only because it scrolls, or a row whose words do not fit on its line: the words inside go on
        // lines of their own, each beside the elements it goes with (a feed's authors, a result's duration), and its
        // own line shows none of them.
        if (!isControl(el, tag) && ((!cheap && !clickable) || item.text.length >= LABEL_MAX)) {
          lines = true;
          item.lines = true;
          const text = ownText(el);
          if (text) {
            if (!push({kind: 'text', depth: ctx.depth + 1, text: cut(text, TEXT_MAX)})) return;
            wroteText = true;
            if (box) pending.push({box, item: items.length - 1, end: items.length, opaqueOnly: true});
          }
        }
      } else if ((!ctx.inInteractive || ctx.lines) && !(ctx.inText && isInline(el, tag))) {
        const text = ownText(el);
        if (text) {
          if (!push({kind: 'text', depth: ctx.depth, text: cut(text, TEXT_MAX)})) return;
          wroteText = true;
          // Text under an opaque box is not seen either.
          if (box) pending.push({box, item: items.length - 1, end: items.length, opaqueOnly: true});
        }
      }
    }
    const childCtx = {
      depth: ctx.depth + (listed ? 1 : 0),
      parentPointer: pointer && !LIST_TAGS.has(tag),
      inInteractive: ctx.inInteractive || listed || cheap,
      inText: wroteText || (ctx.inText && isInline(el, tag)),
      inRow: listed ? !isControl(el, tag) : ctx.inRow,
      choices: seen && isSuggestions(el, tag, style, rect) ? el : listed ? null : ctx.choices,
      lines: listed ? lines : ctx.lines && !cheap,
    };
    visitChildren(el, tag, childCtx);
    if (box) box.last = visited - 1;
    if (listed && listedCount === listedBefore && !lines) nameIcon(el, /** @type {ElementItem} */ (items[own]));
    // A row whose words are on lines of its own says more than what it holds.
    if (listed && !lines && mergeWrapper(own, listedCount - listedBefore)) waiting = null;
    if (waiting) {
      waiting.end = items.length;
      pending.push(waiting);
    }
  }

  /**
   * @param {El} el
   * @param {string} tag
   * @param {Context} ctx
   */
  function visitChildren(el, tag, ctx) {
    // A drop-down's options are drawn only in its picker, and its line lists them (options=); a datalist is never
    // drawn. Their thousands of options on a long form are not measured.
    if (tag === 'DATALIST' || (tag === 'SELECT' && !el.multiple && /** @type {HTMLSelectElement} */ (el).size <= 1)) {
      return;
    }
    if (isClosedDetails(el, tag)) {
      for (let c = el.firstElementChild; c; c = c.nextElementSibling) if (c.tagName === 'SUMMARY') visit(c, ctx);
      return;
    }
    const shadow = el.shadowRoot;
    if (shadow) {
      for (let c = shadow.firstElementChild; c; c = c.nextElementSibling) visit(c, ctx);
      return;  // light children only render where a <slot> puts them
    }
    if (tag === 'SLOT') {
      const assigned = /** @type {HTMLSlotElement} */ (el).assignedElements();
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
  /**
   * @param {El} el
   * @param {DOMRect} rect
   * @param {number} depth
   * @param {Box | null} box
   */
  function frameSlot(el, rect, depth, box) {
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
    if (!options.dry) el.__pageAgentSlot = slot;  // read back by Python through frame.frame_element()
    if (push({kind: 'frame', depth, slot, region: childRegion, alpha: paintOf(el).alpha}) && box) {
      // A frame under an opaque box shows nothing; its document cannot see what covers it.
      pending.push({box, item: items.length - 1, end: items.length, opaqueOnly: true});
    }
  }

  visit(document.documentElement, {depth: 0, parentPointer: false, inInteractive: false, inText: false,
    inRow: false, choices: null, lines: false});

  // A covered element is left out (the click would land on what covers it); what it contained moves up a level.
  const dropped = new Set(merged);
  // What a merged wrapper contained moves up a level, like a covered element's.
  for (const i of merged) {
    for (let j = i + 1; j < items.length && items[j].depth > items[i].depth; j++) items[j].depth -= 1;
  }
  for (const {box, item, end, opaqueOnly} of pending) {
    if (!isCovered(box, opaqueOnly)) continue;
    dropped.add(item);
    if (!opaqueOnly) for (let i = item + 1; i < end; i++) items[i].depth -= 1;
  }
  /** @type {Set<Element>} */
  const named = new Set();  // list items whose name was told
  items.forEach((item, i) => {
    if (!dropped.has(i) && item.kind === 'el') plainTreeItem(item, /** @type {El} */ (owners[i]), named);
  });
  /** @type {Item[]} */
  const listing = [];
  items.forEach((item, i) => {
    if (dropped.has(i)) return;
    if (item.kind === 'el') {
      const owner = /** @type {El} */ (owners[i]);
      item.ref = elements.length;
      const standIn = standIns.get(owner);
      if (standIn) state.controls.set(standIn, owner);
      elements.push(standIn || owner);
      // Only now is it known: a covered element seen again once the overlay goes is news to the model.
      state.known.add(owner);
    }
    listing.push(item);
  });

  state.observed = true;
  state.nonce = options.nonce;
  state.elements = elements;
  // For the check at the moment of use: the element's line as it would read now, by the same rules.
  state.itemOf = (el) => {
    page = pageBounds();
    styles = new Map();
    paints = new Map();
    backgrounds = new Map();
    textStyles = new Map();
    hrefs = hrefCache();
    hover = hoverRules();
    const control = state.controls.get(el) || el;  // a label acted on for its control reads as the control
    const item = itemOf(control, control.tagName, styleOf(control));
    if (!control.querySelector(INTERACTIVE_INSIDE)) nameIcon(control, item);
    return JSON.stringify(item);
  };

  return {
    title: document.title,
    url: location.href,
    origin: location.origin,
    viewport: {width: vw, height: vh},
    scroll: {y: scroller.scrollTop, height: scroller.scrollHeight},
    items: listing,
    truncated,
  };
}
