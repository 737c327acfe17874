/*
 * Patchwell widget: a "report a problem" button and form for any web page.
 *
 *   <script src="https://patchwell.example.com/widget.js" data-key="pk_…" async></script>
 *
 * Optional attributes: data-locale (en | it), data-release, data-environment, data-user-id,
 * data-email, data-user-hash, data-consent="true" (the host site's consent to passive error
 * collection and identification). The same is available at run time:
 *
 *   window.Patchwell.consent(true);
 *   window.Patchwell.identify({ email, user_hash, user_id });
 *   window.Patchwell.open();
 *
 * What it keeps: the last N console errors and warnings, uncaught errors and rejections, and
 * network requests (fetch and XMLHttpRequest), with email addresses and tokens masked. They are
 * sent with a report only when the person ticks the technical-details box. Passive error
 * events are sent only when the workspace enabled passive collection and the host gave consent.
 * Plain browser JavaScript, no dependencies.
 */
(function () {
  'use strict';
  if (window.__patchwellWidget) return;
  window.__patchwellWidget = true;

  var script =
    document.currentScript ||
    (function () {
      var all = document.querySelectorAll('script[data-key]');
      for (var i = 0; i < all.length; i++) if (/\/widget\.js(\?|$)/.test(all[i].src)) return all[i];
      return null;
    })();
  if (!script) return;
  var attr = function (name) {
    return script.getAttribute('data-' + name);
  };
  var key = attr('key');
  if (!key) return;
  var base = new URL(script.src, location.href).origin;

  var state = {
    config: null,
    consent: attr('consent') === 'true',
    release: attr('release') || '',
    environment: attr('environment') || '',
    userId: attr('user-id') || '',
    email: attr('email') || '',
    userHash: attr('user-hash') || '',
    locale: attr('locale') || navigator.language || 'en',
    max: 30,
    console: [],
    network: [],
    pending: [],
    flushTimer: null,
  };

  // ---- masking ------------------------------------------------------------------------------
  var MASKS = [
    [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\b/g, '[token]'],
    [/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 [token]'],
    [
      /([?&;,\s"']?(?:access_token|refresh_token|id_token|token|api_key|apikey|key|secret|password|passwd|pwd|auth|session|sig|signature|code)["']?\s*[=:]\s*["']?)[^&\s"',;]+/gi,
      '$1[masked]',
    ],
    [/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, '[email]'],
    [/\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{32,}\b/g, '[token]'],
    [/\b(?:\d[ -]?){13,19}\b/g, '[number]'],
  ];
  function mask(text) {
    var s = String(text == null ? '' : text);
    for (var i = 0; i < MASKS.length; i++) s = s.replace(MASKS[i][0], MASKS[i][1]);
    return s;
  }
  function now() {
    return new Date().toISOString();
  }
  function keep(list, entry) {
    list.push(entry);
    while (list.length > state.max) list.shift();
  }
  function describe(args) {
    var out = [];
    for (var i = 0; i < args.length; i++) {
      var a = args[i];
      if (a instanceof Error) out.push(a.name + ': ' + a.message);
      else if (typeof a === 'object') {
        try {
          out.push(JSON.stringify(a));
        } catch (_e) {
          out.push(String(a));
        }
      } else out.push(String(a));
    }
    return out.join(' ').slice(0, 2000);
  }
  function stackOf(args) {
    for (var i = 0; i < args.length; i++)
      if (args[i] instanceof Error && args[i].stack) return String(args[i].stack).slice(0, 4000);
    return undefined;
  }

  // ---- console capture ----------------------------------------------------------------------
  ['error', 'warn'].forEach(function (level) {
    var original = console[level];
    if (typeof original !== 'function') return;
    console[level] = function () {
      try {
        var entry = { level: level, message: mask(describe(arguments)), timestamp: now() };
        var stack = stackOf(arguments);
        if (stack) entry.stack = mask(stack);
        keep(state.console, entry);
      } catch (_e) {
        /* never break the host page */
      }
      return original.apply(this, arguments);
    };
  });

  // ---- network capture ----------------------------------------------------------------------
  function ours(url) {
    try {
      return new URL(url, location.href).origin === base;
    } catch (_e) {
      return false;
    }
  }
  function record(method, url, status, started, error) {
    if (ours(url)) return;
    var entry = {
      method: String(method || 'GET').toUpperCase(),
      url: mask(String(url)).slice(0, 2000),
      status: status || 0,
      duration_ms: Math.max(0, Math.round(performance.now() - started)),
      timestamp: now(),
    };
    if (error) entry.error = mask(error).slice(0, 500);
    keep(state.network, entry);
  }
  if (typeof window.fetch === 'function') {
    var originalFetch = window.fetch;
    window.fetch = function (input, init) {
      var started = performance.now();
      var method = (init && init.method) || (input && input.method) || 'GET';
      var url = typeof input === 'string' ? input : (input && input.url) || String(input);
      return originalFetch.apply(this, arguments).then(
        function (res) {
          try {
            record(method, url, res.status, started);
          } catch (_e) {
            /* ignore */
          }
          return res;
        },
        function (err) {
          try {
            record(method, url, 0, started, err && err.message ? err.message : 'network error');
          } catch (_e) {
            /* ignore */
          }
          throw err;
        },
      );
    };
  }
  if (window.XMLHttpRequest) {
    var open = XMLHttpRequest.prototype.open;
    var send = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.open = function (method, url) {
      this.__pw = { method: method, url: url };
      return open.apply(this, arguments);
    };
    XMLHttpRequest.prototype.send = function () {
      if (this.__pw) {
        var started = performance.now();
        this.addEventListener('loadend', function (event) {
          var xhr = event.currentTarget; // the request this listener was added to
          try {
            record(xhr.__pw.method, xhr.__pw.url, xhr.status, started, xhr.status === 0 ? 'network error' : undefined);
          } catch (_e) {
            /* ignore */
          }
        });
      }
      return send.apply(this, arguments);
    };
  }

  // ---- passive error collection ---------------------------------------------------------------
  function passive(type, message, stack) {
    var c = state.config;
    if (!c || !c.passive_collection.enabled || !state.consent) return;
    var ev = {
      type: type || 'Error',
      message: mask(message || 'Unknown error').slice(0, 4000),
      url: mask(location.href),
      occurred_at: now(),
      level: 'error',
    };
    if (stack) ev.stack = mask(stack).slice(0, 16000);
    if (state.release) ev.release = state.release;
    if (state.environment) ev.environment = state.environment;
    state.pending.push(ev);
    if (state.pending.length > 20) state.pending.shift();
    if (!state.flushTimer) state.flushTimer = setTimeout(flush, 1000);
  }
  function flush() {
    state.flushTimer = null;
    if (!state.pending.length) return;
    var events = state.pending.splice(0, 20);
    var body = { consent: true, events: events, browser: browserInfo() };
    if (state.userId) body.user_id = state.userId;
    post('/v1/widget/events', body).catch(function () {
      /* dropped: the page goes on */
    });
  }
  window.addEventListener('error', function (e) {
    var err = e.error;
    var message = (err && err.message) || e.message || 'Script error';
    keep(state.console, {
      level: 'unhandled_exception',
      message: mask(message),
      stack: err && err.stack ? mask(err.stack) : undefined,
      timestamp: now(),
    });
    passive(err && err.name, message, err && err.stack);
  });
  window.addEventListener('unhandledrejection', function (e) {
    var r = e.reason;
    var message = r instanceof Error ? r.message : describe([r]);
    keep(state.console, {
      level: 'unhandled_rejection',
      message: mask(message),
      stack: r && r.stack ? mask(r.stack) : undefined,
      timestamp: now(),
    });
    passive(r instanceof Error ? r.name : 'UnhandledRejection', message, r && r.stack);
  });

  // ---- API --------------------------------------------------------------------------------------
  function post(path, body) {
    return fetchApi(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }
  function fetchApi(path, init) {
    var url = base + path + (path.indexOf('?') >= 0 ? '&' : '?') + 'key=' + encodeURIComponent(key);
    init.credentials = 'omit';
    init.mode = 'cors';
    return (originalFetchRef || window.fetch)(url, init).then(function (res) {
      return res.text().then(function (text) {
        var data = null;
        try {
          data = text ? JSON.parse(text) : null;
        } catch (_e) {
          /* not JSON */
        }
        if (!res.ok) {
          var err = new Error((data && data.message) || 'HTTP ' + res.status);
          err.status = res.status;
          err.data = data;
          throw err;
        }
        return data;
      });
    });
  }
  var originalFetchRef = typeof originalFetch === 'function' ? originalFetch.bind(window) : null;

  function browserInfo() {
    return {
      user_agent: navigator.userAgent,
      language: navigator.language || '',
      viewport: { width: window.innerWidth || 0, height: window.innerHeight || 0 },
      screen: { width: (window.screen && screen.width) || 0, height: (window.screen && screen.height) || 0 },
    };
  }

  function identify() {
    if (!state.consent || !state.email || !state.userHash) return Promise.resolve(null);
    var body = { consent: true, email: state.email, user_hash: state.userHash };
    if (state.userId) body.user_id = state.userId;
    return post('/v1/widget/identify', body).catch(function () {
      return null;
    });
  }

  // ---- UI ---------------------------------------------------------------------------------------
  var host,
    root,
    ui = {};
  function el(tag, props, children) {
    var n = document.createElement(tag);
    if (props)
      for (var k in props) {
        if (k === 'text') n.textContent = props[k];
        else if (k === 'style') n.style.cssText = props[k];
        else n.setAttribute(k, props[k]);
      }
    (children || []).forEach(function (c) {
      if (c) n.appendChild(c);
    });
    return n;
  }

  function render(c) {
    var t = c.texts,
      b = c.brand,
      dark = b.theme === 'dark';
    var fg = dark ? '#f9fafb' : '#111827',
      bg = dark ? '#111827' : '#ffffff',
      border = dark ? '#374151' : '#d1d5db';
    host = el('div', { id: 'patchwell-widget', 'data-testid': 'patchwell-widget' });
    root = host.attachShadow ? host.attachShadow({ mode: 'open' }) : host;
    var font =
      b.font_family && b.font_family !== 'System UI'
        ? '"' + b.font_family + '", system-ui, sans-serif'
        : 'system-ui, sans-serif';
    root.appendChild(
      el('style', {
        text:
          ':host{all:initial}' +
          '.pw{font-family:' +
          font +
          ';font-size:14px;color:' +
          fg +
          '}' +
          '.pw-button{position:fixed;right:20px;bottom:20px;z-index:2147483000;background:' +
          b.primary_color +
          ';color:#fff;border:0;border-radius:22px;padding:10px 18px;font:inherit;font-weight:600;cursor:pointer;box-shadow:0 2px 8px rgba(0,0,0,.25)}' +
          '.pw-panel{position:fixed;right:20px;bottom:76px;z-index:2147483001;width:340px;max-width:calc(100vw - 40px);max-height:calc(100vh - 100px);overflow:auto;background:' +
          bg +
          ';border:1px solid ' +
          border +
          ';border-radius:10px;box-shadow:0 8px 24px rgba(0,0,0,.25)}' +
          '.pw-head{background:' +
          b.primary_color +
          ';color:#fff;padding:10px 14px;border-radius:10px 10px 0 0;display:flex;align-items:center;gap:8px}' +
          '.pw-head img{max-height:24px;max-width:120px}.pw-head h2{font-size:15px;margin:0;flex:1}' +
          '.pw-close{background:none;border:0;color:#fff;font-size:18px;cursor:pointer}' +
          '.pw-body{padding:12px 14px;display:flex;flex-direction:column;gap:8px}' +
          '.pw-body label{font-weight:600}.pw-body textarea,.pw-body input[type=email]{font:inherit;color:' +
          fg +
          ';background:' +
          bg +
          ';border:1px solid ' +
          border +
          ';border-radius:6px;padding:6px 8px}' +
          '.pw-body textarea{min-height:90px;resize:vertical}.pw-check{font-weight:400!important;display:flex;gap:6px;align-items:flex-start;font-size:12px}' +
          '.pw-submit{background:' +
          b.primary_color +
          ';color:#fff;border:0;border-radius:6px;padding:8px 12px;font:inherit;font-weight:600;cursor:pointer}' +
          '.pw-submit[disabled]{opacity:.6;cursor:default}.pw-error{color:#b91c1c}.pw-badge{font-size:11px;opacity:.7;text-align:center;padding:0 0 8px}' +
          '.pw-hidden{display:none!important}',
      }),
    );
    var wrap = el('div', { class: 'pw' });
    ui.button = el('button', { class: 'pw-button', type: 'button', 'data-testid': 'pw-open', text: t.button });
    ui.message = el('textarea', {
      id: 'pw-message',
      name: 'message',
      placeholder: t.message_placeholder,
      'data-testid': 'pw-message',
      required: 'required',
    });
    ui.email = el('input', {
      id: 'pw-email',
      name: 'email',
      type: 'email',
      'data-testid': 'pw-email',
      required: 'required',
    });
    if (state.email) ui.email.value = state.email;
    ui.technical = el('input', { type: 'checkbox', 'data-testid': 'pw-technical' });
    ui.shot = el('input', { type: 'file', accept: 'image/png,image/jpeg,image/webp', 'data-testid': 'pw-screenshot' });
    ui.shotConsent = el('input', { type: 'checkbox', 'data-testid': 'pw-screenshot-consent' });
    ui.submit = el('button', { class: 'pw-submit', type: 'submit', 'data-testid': 'pw-submit', text: t.submit });
    ui.error = el('p', { class: 'pw-error pw-hidden', role: 'alert', 'data-testid': 'pw-error', text: t.error });
    ui.done = el('div', { class: 'pw-body pw-hidden', 'data-testid': 'pw-done' });
    var shotRow = c.capture.screenshot
      ? el('div', { class: 'pw-body', style: 'padding:0' }, [
          el('label', { text: t.screenshot_button }, [ui.shot]),
          el('label', { class: 'pw-check' }, [ui.shotConsent, el('span', { text: t.screenshot_consent })]),
        ])
      : null;
    ui.form = el('form', { class: 'pw-body', 'data-testid': 'pw-form', novalidate: 'novalidate' }, [
      el('label', { for: 'pw-message', text: t.message_label }),
      ui.message,
      el('label', { for: 'pw-email', text: t.email_label }),
      ui.email,
      el('label', { class: 'pw-check' }, [ui.technical, el('span', { text: t.technical_consent })]),
      shotRow,
      ui.error,
      ui.submit,
    ]);
    var head = el('div', { class: 'pw-head' }, [
      b.logo_url ? el('img', { src: b.logo_url, alt: b.name }) : null,
      el('h2', { text: t.title }),
      el('button', { class: 'pw-close', type: 'button', 'aria-label': 'Close', 'data-testid': 'pw-close', text: '×' }),
    ]);
    ui.panel = el(
      'div',
      { class: 'pw-panel pw-hidden', role: 'dialog', 'aria-label': t.title, 'data-testid': 'pw-panel' },
      [
        head,
        ui.form,
        ui.done,
        b.show_badge && b.badge_text ? el('div', { class: 'pw-badge', text: b.badge_text }) : null,
      ],
    );
    wrap.appendChild(ui.button);
    wrap.appendChild(ui.panel);
    root.appendChild(wrap);
    document.body.appendChild(host);

    ui.button.addEventListener('click', function () {
      toggle();
    });
    head.querySelector('.pw-close').addEventListener('click', function () {
      toggle(false);
    });
    ui.form.addEventListener('submit', function (e) {
      e.preventDefault();
      submit(c);
    });
  }

  function toggle(open) {
    if (!ui.panel) return;
    var show = open === undefined ? ui.panel.classList.contains('pw-hidden') : open;
    ui.panel.classList.toggle('pw-hidden', !show);
    if (show) ui.message.focus();
  }

  function readFile(file) {
    return new Promise(function (resolve, reject) {
      var r = new FileReader();
      r.onload = function () {
        resolve(String(r.result));
      };
      r.onerror = function () {
        reject(r.error);
      };
      r.readAsDataURL(file);
    });
  }

  function submit(c) {
    var message = ui.message.value.trim(),
      email = ui.email.value.trim();
    ui.error.classList.add('pw-hidden');
    if (!message || !email || !ui.email.checkValidity()) {
      ui.error.classList.remove('pw-hidden');
      return;
    }
    ui.submit.setAttribute('disabled', 'disabled');
    var technical = ui.technical.checked;
    var body = { email: email, message: message, locale: c.locale, technical_consent: technical };
    if (state.userId) body.user_id = state.userId;
    if (state.userHash && state.email && state.email.toLowerCase() === email.toLowerCase())
      body.user_hash = state.userHash;
    body.context = technical
      ? {
          console: c.capture.console ? state.console.slice(-c.capture.max_entries) : [],
          network: c.capture.network ? state.network.slice(-c.capture.max_entries) : [],
          browser: browserInfo(),
          url: mask(location.href),
          release: state.release,
        }
      : { url: mask(location.href), release: state.release };
    if (!body.context.release) delete body.context.release;
    var file = ui.shot && ui.shot.files && ui.shot.files[0];
    var ready =
      file && ui.shotConsent.checked
        ? readFile(file).then(function (data) {
            body.screenshot = data;
            body.screenshot_consent = true;
          })
        : Promise.resolve();
    ready
      .then(function () {
        return post('/v1/widget/reports', body);
      })
      .then(function (receipt) {
        ui.form.classList.add('pw-hidden');
        ui.done.textContent = '';
        ui.done.appendChild(el('p', { 'data-testid': 'pw-confirmation', text: c.texts.confirmation }));
        if (receipt && receipt.status_url)
          ui.done.appendChild(
            el('a', {
              href: receipt.status_url,
              target: '_blank',
              rel: 'noopener',
              'data-testid': 'pw-follow',
              text: c.texts.follow_link,
            }),
          );
        ui.done.classList.remove('pw-hidden');
        ui.message.value = '';
      })
      .catch(function () {
        ui.error.classList.remove('pw-hidden');
      })
      .then(function () {
        ui.submit.removeAttribute('disabled');
      });
  }

  // ---- start ------------------------------------------------------------------------------------
  window.Patchwell = {
    consent: function (value) {
      state.consent = value === true;
      if (state.consent) {
        identify();
        flush();
      }
    },
    identify: function (who) {
      who = who || {};
      if (who.email) state.email = String(who.email);
      if (who.user_hash) state.userHash = String(who.user_hash);
      if (who.user_id) state.userId = String(who.user_id);
      if (ui.email && state.email && !ui.email.value) ui.email.value = state.email;
      return identify();
    },
    setRelease: function (release) {
      state.release = String(release || '');
    },
    open: function () {
      toggle(true);
    },
    close: function () {
      toggle(false);
    },
  };

  function start() {
    fetchApi('/v1/widget/config?locale=' + encodeURIComponent(state.locale), { method: 'GET' })
      .then(function (c) {
        state.config = c;
        state.max = c.capture.max_entries || 30;
        render(c);
        identify();
        if (state.pending.length) flush();
      })
      .catch(function (err) {
        if (window.console && console.info) console.info('Patchwell widget not loaded: ' + (err && err.message));
      });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
