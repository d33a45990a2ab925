/* Acme CRM demo: plain JS, no build step. State lives in localStorage, which is per origin; the demo server picks a
   new port every run, so every run starts from a clean slate. */
(function () {
  "use strict";

  var SESSION_KEY = "acme.session";
  var CUSTOMERS_KEY = "acme.customers";
  var LAST_SAVED_KEY = "acme.lastSaved";

  var SAMPLE_CUSTOMERS = [
    { id: "c-1004", first_name: "Maya", last_name: "Lindqvist", email: "maya@northwind.io", phone: "+46 8 555 0142",
      company: "Northwind Traders", plan: "Enterprise", start_date: "2024-11-04" },
    { id: "c-1003", first_name: "Tomás", last_name: "Herrera", email: "tomas@brightpath.co", phone: "+34 91 555 0188",
      company: "Brightpath", plan: "Pro", start_date: "2024-10-21" },
    { id: "c-1002", first_name: "Priya", last_name: "Raman", email: "priya.raman@lumen.dev", phone: "",
      company: "Lumen Labs", plan: "Starter", start_date: "2024-09-30" },
    { id: "c-1001", first_name: "Jonah", last_name: "Okafor", email: "jonah@fieldnotes.app", phone: "+1 415 555 0117",
      company: "Fieldnotes", plan: "Free", start_date: "2024-09-12" }
  ];

  var page = document.documentElement.getAttribute("data-page");

  function readJSON(key, fallback) {
    try {
      var value = JSON.parse(localStorage.getItem(key));
      return value === null ? fallback : value;
    } catch (e) {
      return fallback;
    }
  }

  function session() { return readJSON(SESSION_KEY, null); }
  function savedCustomers() { return readJSON(CUSTOMERS_KEY, []); }
  function allCustomers() { return savedCustomers().concat(SAMPLE_CUSTOMERS); }

  // "?reset" starts the demo over (signed out, only the sample customers): the panel opens it for each new demo
  // run, since the browser keeps this origin's storage between runs of one session.
  if (new URLSearchParams(location.search).has("reset")) {
    [SESSION_KEY, CUSTOMERS_KEY, LAST_SAVED_KEY].forEach(function (key) { localStorage.removeItem(key); });
    history.replaceState(null, "", location.pathname);
  }

  // "?as=demo" opens the page signed in to the demo account, keeping the customers saved so far: the demo routine
  // starts every row on the new-customer form this way (a routine runs in a browser that is signed in already).
  if (new URLSearchParams(location.search).get("as") === "demo") {
    localStorage.setItem(SESSION_KEY, JSON.stringify({ email: "demo@acme.test", name: "Dana Demo" }));
    history.replaceState(null, "", location.pathname);
  }

  // Guard before the page paints: a signed-out visitor goes to the login page and comes back after signing in.
  if (document.documentElement.getAttribute("data-auth") === "required" && !session()) {
    var here = location.pathname.split("/").pop() + location.search;
    location.replace("index.html?next=" + encodeURIComponent(here));
    return;
  }

  function $(selector, root) { return (root || document).querySelector(selector); }
  function $all(selector, root) { return Array.prototype.slice.call((root || document).querySelectorAll(selector)); }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (name === "text") node.textContent = attrs[name];
      else node.setAttribute(name, attrs[name]);
    });
    (children || []).forEach(function (child) { node.appendChild(child); });
    return node;
  }

  function fullName(c) { return c.first_name + " " + c.last_name; }

  function formatDate(iso) {
    if (!iso) return "—";
    var parts = iso.split("-").map(Number);
    var date = new Date(Date.UTC(parts[0], parts[1] - 1, parts[2]));
    if (isNaN(date.getTime())) return iso;
    return date.toLocaleDateString("en-US", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });
  }

  function planBadge(plan) {
    return el("span", { "class": "badge plan-" + String(plan).toLowerCase(), text: plan });
  }

  function initShell() {
    var s = session();
    if (!s) return;
    var name = s.name || s.email;
    var initials = name.split(/[\s@.]+/).filter(Boolean).slice(0, 2).map(function (w) { return w[0].toUpperCase(); }).join("");
    $all("[data-account-name]").forEach(function (node) { node.textContent = name; });
    $all("[data-account-initials]").forEach(function (node) { node.textContent = initials; });
    $all("[data-sign-out]").forEach(function (button) {
      button.addEventListener("click", function () {
        localStorage.removeItem(SESSION_KEY);
        location.href = "index.html";
      });
    });
  }

  // ---- login ---------------------------------------------------------------------------------------------------

  function initLogin() {
    if (session()) {
      location.replace(nextPage());
      return;
    }
    var form = $("#login-form");
    var alert = $("#login-error");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var email = form.email.value.trim();
      var password = form.password.value;
      if (!email || !password) {
        alert.querySelector("[data-message]").textContent = !email && !password
          ? "Enter your email and password."
          : !email ? "Enter your email." : "Enter your password.";
        alert.hidden = false;
        (email ? form.password : form.email).focus();
        return;
      }
      var local = email.split("@")[0].replace(/[._-]+/g, " ");
      var name = local === "demo" ? "Dana Demo" : local.replace(/\b\w/g, function (c) { return c.toUpperCase(); });
      localStorage.setItem(SESSION_KEY, JSON.stringify({ email: email, name: name }));
      location.href = nextPage();
    });
  }

  function nextPage() {
    var next = new URLSearchParams(location.search).get("next") || "";
    // Only same-folder pages: a login page must not become an open redirect.
    return /^[\w-]+\.html(\?[\w=&%.-]*)?$/.test(next) ? next : "dashboard.html";
  }

  // ---- dashboard and customer list -----------------------------------------------------------------------------

  function customerRow(c, columns) {
    var cells = {
      name: el("td", { "class": "name", text: fullName(c) }),
      company: el("td", { text: c.company || "—" }),
      email: el("td", { text: c.email }),
      plan: el("td", {}, [planBadge(c.plan)]),
      start: el("td", { text: formatDate(c.start_date) })
    };
    if (c.id.startsWith("n-")) cells.name.appendChild(el("span", { "class": "badge new", text: "New" }));
    return el("tr", {}, columns.map(function (key) { return cells[key]; }));
  }

  function initDashboard() {
    var customers = allCustomers();
    $("#stat-customers").textContent = (1280 + savedCustomers().length).toLocaleString("en-US");
    var body = $("#recent-customers");
    customers.slice(0, 4).forEach(function (c) { body.appendChild(customerRow(c, ["name", "company", "plan"])); });
  }

  function initCustomers() {
    var customers = allCustomers();
    $("#customer-count").textContent = customers.length + " customers";
    var body = $("#customer-rows");
    customers.forEach(function (c) { body.appendChild(customerRow(c, ["name", "company", "email", "plan", "start"])); });
  }

  // ---- new customer form ---------------------------------------------------------------------------------------

  // A select-only combobox (WAI-ARIA APG pattern): focus stays on the button, aria-activedescendant marks the option.
  function initCombobox(button, onChange) {
    var list = document.getElementById(button.getAttribute("aria-controls"));
    var options = $all("[role=option]", list);
    var valueLabel = $(".combo-value", button);
    var placeholder = valueLabel.textContent;
    var active = -1;

    function setActive(index) {
      active = Math.max(0, Math.min(options.length - 1, index));
      options.forEach(function (o, i) { o.classList.toggle("active", i === active); });
      button.setAttribute("aria-activedescendant", options[active].id);
      options[active].scrollIntoView({ block: "nearest" });
    }
    function open() {
      list.hidden = false;
      button.setAttribute("aria-expanded", "true");
      var selected = options.findIndex(function (o) { return o.getAttribute("aria-selected") === "true"; });
      setActive(selected < 0 ? 0 : selected);
    }
    function close() {
      list.hidden = true;
      button.setAttribute("aria-expanded", "false");
      button.removeAttribute("aria-activedescendant");
    }
    function choose(index) {
      options.forEach(function (o, i) { o.setAttribute("aria-selected", String(i === index)); });
      var value = options[index].getAttribute("data-value");
      valueLabel.textContent = value;
      valueLabel.classList.remove("placeholder");
      close();
      button.focus();
      onChange(value);
    }
    function isOpen() { return !list.hidden; }

    button.addEventListener("click", function () { isOpen() ? close() : open(); });
    button.addEventListener("keydown", function (event) {
      var key = event.key;
      if (!isOpen()) {
        if (key === "ArrowDown" || key === "ArrowUp" || key === "Enter" || key === " ") {
          event.preventDefault();
          open();
        }
        return;
      }
      if (key === "ArrowDown") setActive(active + 1);
      else if (key === "ArrowUp") setActive(active - 1);
      else if (key === "Home") setActive(0);
      else if (key === "End") setActive(options.length - 1);
      else if (key === "Enter" || key === " ") choose(active);
      else if (key === "Escape" || key === "Tab") { if (key === "Escape") event.preventDefault(); close(); return; }
      else if (key.length === 1) {
        var match = options.findIndex(function (o) { return o.textContent.trim().toLowerCase().startsWith(key.toLowerCase()); });
        if (match >= 0) setActive(match);
        return;
      } else return;
      event.preventDefault();
    });
    options.forEach(function (option, index) {
      option.addEventListener("click", function () { choose(index); });
      option.addEventListener("mousemove", function () { if (active !== index) setActive(index); });
    });
    document.addEventListener("mousedown", function (event) {
      if (isOpen() && !button.parentNode.contains(event.target)) close();
    });
    return {
      reset: function () {
        options.forEach(function (o) { o.setAttribute("aria-selected", "false"); });
        valueLabel.textContent = placeholder;
        valueLabel.classList.add("placeholder");
      }
    };
  }

  var EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
  var PHONE_RE = /^\+?[\d\s().-]{6,20}$/;

  function validate(data) {
    var errors = {};
    if (!data.first_name) errors.first_name = "First name is required.";
    if (!data.last_name) errors.last_name = "Last name is required.";
    if (!data.email) errors.email = "Email is required.";
    else if (!EMAIL_RE.test(data.email)) errors.email = "Enter a valid email address, like name@company.com.";
    if (data.phone && !PHONE_RE.test(data.phone)) errors.phone = "Enter a valid phone number, like +1 415 555 0100.";
    if (!data.plan) errors.plan = "Choose a plan.";
    if (!data.start_date) errors.start_date = "Start date is required.";
    return errors;
  }

  function initNewCustomer() {
    var form = $("#customer-form");
    var planInput = form.elements.plan;
    var planButton = $("#plan-combobox");
    var summary = $("#form-errors");
    var shown = false;  // live re-validation only after the first Save, so nobody is scolded while typing

    initCombobox(planButton, function (value) {
      planInput.value = value;
      if (shown) showErrors(validate(readForm()));
    });

    function readForm() {
      return {
        first_name: form.first_name.value.trim(),
        last_name: form.last_name.value.trim(),
        email: form.email.value.trim(),
        phone: form.phone.value.trim(),
        company: form.company.value.trim(),
        plan: planInput.value,
        start_date: form.start_date.value,
        welcome_email: form.welcome_email.checked,
        notes: form.notes.value.trim()
      };
    }

    function showErrors(errors) {
      ["first_name", "last_name", "email", "phone", "plan", "start_date"].forEach(function (name) {
        var control = name === "plan" ? planButton : form.elements[name];
        var message = document.getElementById(name + "-error");
        if (errors[name]) {
          control.setAttribute("aria-invalid", "true");
          message.textContent = errors[name];
          message.hidden = false;
        } else {
          control.removeAttribute("aria-invalid");
          message.textContent = "";
          message.hidden = true;
        }
      });
      var count = Object.keys(errors).length;
      summary.hidden = count === 0;
      $("[data-message]", summary).textContent = count === 1
        ? "1 field needs your attention before this customer can be saved."
        : count + " fields need your attention before this customer can be saved.";
    }

    form.addEventListener("input", function () { if (shown) showErrors(validate(readForm())); });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var data = readForm();
      var errors = validate(data);
      shown = true;
      showErrors(errors);
      var first = Object.keys(errors)[0];
      if (first) {
        (first === "plan" ? planButton : form.elements[first]).focus();
        return;
      }
      data.id = "n-" + Date.now().toString(36);
      data.saved_at = new Date().toISOString();
      var customers = savedCustomers();
      customers.unshift(data);
      localStorage.setItem(CUSTOMERS_KEY, JSON.stringify(customers));
      localStorage.setItem(LAST_SAVED_KEY, data.id);
      location.href = "customer-saved.html?id=" + encodeURIComponent(data.id);
    });
  }

  // ---- confirmation --------------------------------------------------------------------------------------------

  function initCustomerSaved() {
    var id = new URLSearchParams(location.search).get("id") || localStorage.getItem(LAST_SAVED_KEY);
    var customer = savedCustomers().find(function (c) { return c.id === id; });
    if (!customer) {
      $("#saved-title").textContent = "No customer found";
      $("#saved-lead").textContent = "There is no recently saved customer to show.";
      $("#saved-summary").hidden = true;
      $(".success-icon").hidden = true;
      return;
    }
    $("#saved-lead").textContent = fullName(customer) + " was added to your customers.";
    var rows = [
      ["First name", customer.first_name],
      ["Last name", customer.last_name],
      ["Email", customer.email],
      ["Phone", customer.phone || "—"],
      ["Company", customer.company || "—"],
      ["Plan", customer.plan],
      ["Start date", formatDate(customer.start_date)],
      ["Welcome email", customer.welcome_email ? "Will be sent" : "Not sent"],
      ["Notes", customer.notes || "—"]
    ];
    var dl = $("#saved-summary");
    rows.forEach(function (row) {
      dl.appendChild(el("dt", { text: row[0] }));
      dl.appendChild(el("dd", { text: row[1] }));
    });
  }

  // ---- security check (captcha) --------------------------------------------------------------------------------

  // No look-alikes (0/O, 1/I/L) so a person can read it on the first try.
  var CAPTCHA_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
  var CAPTCHA_LENGTH = 6;

  function randomCode() {
    var code = "";
    for (var i = 0; i < CAPTCHA_LENGTH; i++) {
      code += CAPTCHA_ALPHABET[Math.floor(Math.random() * CAPTCHA_ALPHABET.length)];
    }
    return code;
  }

  function drawCaptcha(canvas, code) {
    var ratio = window.devicePixelRatio || 1;
    var width = 260, height = 72;
    canvas.width = width * ratio;
    canvas.height = height * ratio;
    canvas.style.width = width + "px";
    canvas.style.height = height + "px";
    var ctx = canvas.getContext("2d");
    ctx.scale(ratio, ratio);
    var gradient = ctx.createLinearGradient(0, 0, width, height);
    gradient.addColorStop(0, "#eef2ff");
    gradient.addColorStop(1, "#fdf4ff");
    ctx.fillStyle = gradient;
    ctx.fillRect(0, 0, width, height);
    for (var d = 0; d < 90; d++) {
      ctx.fillStyle = "rgba(71, 85, 105, " + (0.15 + Math.random() * 0.25) + ")";
      ctx.fillRect(Math.random() * width, Math.random() * height, 2, 2);
    }
    var fonts = ["Georgia, serif", "'Courier New', monospace", "Verdana, sans-serif", "'Trebuchet MS', sans-serif"];
    var colors = ["#312e81", "#7c2d12", "#14532d", "#1e3a8a", "#701a75", "#0f172a"];
    var step = (width - 40) / code.length;
    for (var i = 0; i < code.length; i++) {
      ctx.save();
      ctx.translate(22 + step * i + step / 2, height / 2 + (Math.random() - 0.5) * 14);
      ctx.rotate((Math.random() - 0.5) * 0.7);
      ctx.transform(1, (Math.random() - 0.5) * 0.4, (Math.random() - 0.5) * 0.4, 1, 0, 0);
      ctx.font = "bold " + (30 + Math.floor(Math.random() * 8)) + "px " + fonts[i % fonts.length];
      ctx.fillStyle = colors[Math.floor(Math.random() * colors.length)];
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(code[i], 0, 0);
      ctx.restore();
    }
    for (var l = 0; l < 4; l++) {
      ctx.strokeStyle = "rgba(79, 70, 229, " + (0.35 + Math.random() * 0.3) + ")";
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.moveTo(0, Math.random() * height);
      ctx.bezierCurveTo(width / 3, Math.random() * height, 2 * width / 3, Math.random() * height, width, Math.random() * height);
      ctx.stroke();
    }
  }

  function initVerify() {
    var canvas = $("#captcha-canvas");
    var form = $("#captcha-form");
    var alert = $("#captcha-error");
    var code = "";

    function refresh() {
      code = randomCode();
      drawCaptcha(canvas, code);
      form.captcha.value = "";
    }
    function fail(message) {
      $("[data-message]", alert).textContent = message;
      alert.hidden = false;
    }

    $("#captcha-refresh").addEventListener("click", function () { refresh(); form.captcha.focus(); });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var typed = form.captcha.value.replace(/\s+/g, "").toUpperCase();
      if (!form.not_robot.checked) {
        fail("Tick “I'm not a robot” to continue.");
        return;
      }
      if (!typed) {
        fail("Type the characters shown in the captcha.");
        form.captcha.focus();
        return;
      }
      if (typed !== code) {
        fail("Those characters don't match. Here are new ones — try again.");
        refresh();
        form.captcha.focus();
        return;
      }
      alert.hidden = true;
      $("#captcha-step").hidden = true;
      showExport();
    });
    refresh();
  }

  function csvCell(value) {
    var text = String(value == null ? "" : value);
    return /[",\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  }

  function showExport() {
    var header = ["first_name", "last_name", "email", "phone", "company", "plan", "start_date"];
    var lines = [header.join(",")].concat(allCustomers().map(function (c) {
      return header.map(function (key) { return csvCell(c[key]); }).join(",");
    }));
    var csv = lines.join("\n") + "\n";
    $("#export-preview").textContent = csv;
    var link = $("#export-download");
    link.href = URL.createObjectURL(new Blob([csv], { type: "text/csv" }));
    // Once downloaded, no longer a link: the browser's status bubble ("blob:…") does not linger under the pointer.
    link.addEventListener("click", function () {
      setTimeout(function () {
        link.removeAttribute("href");
        link.setAttribute("aria-disabled", "true");
        link.lastChild.textContent = " Downloaded";
      }, 300);
    });
    document.title = "Export ready — Acme CRM";
    $("#export-step").hidden = false;
    $("#export-title").focus();
  }

  // ---- boot ----------------------------------------------------------------------------------------------------

  var PAGES = {
    login: initLogin,
    dashboard: initDashboard,
    customers: initCustomers,
    "new-customer": initNewCustomer,
    "customer-saved": initCustomerSaved,
    verify: initVerify
  };

  function boot() {
    initShell();
    if (PAGES[page]) PAGES[page]();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
