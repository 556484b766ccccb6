// Client-side search of the static site over search-index.js (window.KB_SEARCH_INDEX).
// Record text is untrusted: everything is inserted as text nodes, never as HTML.
(function () {
  "use strict";
  var index = window.KB_SEARCH_INDEX || { docs: [] };
  var list = document.getElementById("results");
  var status = document.getElementById("search-status");
  if (!list || !status) return;
  var params = new URLSearchParams(window.location.search);
  var q = (params.get("q") || "").trim();
  var filters = {};
  ["engine", "severity", "status"].forEach(function (name) {
    filters[name] = params.get(name) || "";
    var select = document.getElementById("f-" + name);
    if (select) select.value = filters[name];
  });
  document.getElementById("q").value = q;
  // The query as the server reads it: words, without the stop words it drops (unless
  // that leaves none), each also matched by its stem ("hangs" finds "hang").
  var STOP = ("a an and are as at be been but by can do does for from has have how i if in " +
              "into is it its me my of on or our so than that the their then there these " +
              "this to was we were what when where which while who why will with you your " +
              "gets get got after again").split(" ");
  var words = q.toLowerCase().split(/[^a-z0-9_.\-\u0080-\uffff]+/).filter(Boolean);
  var kept = words.filter(function (w) { return STOP.indexOf(w) < 0; });
  var terms = kept.length ? kept : words;
  function stem(w) {
    var rules = [["ing", 5], ["ed", 4], ["es", 4], ["s", 4]];
    for (var i = 0; i < rules.length; i++) {
      var suf = rules[i][0];
      if (w.length >= rules[i][1] + 1 && w.slice(-suf.length) === suf) return w.slice(0, -suf.length);
    }
    return w;
  }
  var stems = terms.map(stem);
  var filtering = filters.engine || filters.severity || filters.status;
  if (!terms.length && !filtering) {
    status.textContent = "Type words to search " + index.docs.length + " records.";
    return;
  }

  function allowed(doc) {
    if (!filtering) return true;
    if (doc.k !== "gotcha") return false;
    if (filters.severity && doc.s !== filters.severity) return false;
    if (filters.status && doc.st !== filters.status) return false;
    if (filters.engine && doc.e.indexOf(filters.engine) < 0) return false;
    return true;
  }

  // Per term: where it is found (title 10, id 4, text 1), weighted by how rare it is, as
  // the server ranks a title hit over a body hit.
  var lowered = index.docs.map(function (doc) {
    return { t: doc.t.toLowerCase(), id: doc.id.toLowerCase(), x: doc.x.toLowerCase() };
  });
  var rarity = stems.map(function (st) {
    var n = 0;
    lowered.forEach(function (l) {
      if (l.t.indexOf(st) >= 0 || l.id.indexOf(st) >= 0 || l.x.indexOf(st) >= 0) n++;
    });
    return Math.log((index.docs.length + 1) / (n + 0.5));
  });
  var scored = [];
  index.docs.forEach(function (doc, i) {
    if (!allowed(doc)) return;
    var l = lowered[i];
    var found = 0, score = 0;
    stems.forEach(function (st, k) {
      var w = (l.t.indexOf(st) >= 0 ? 10 : 0) + (l.id.indexOf(st) >= 0 ? 4 : 0) +
              (l.x.indexOf(st) >= 0 ? 1 : 0);
      if (w > 0) found++;
      score += w * rarity[k];
    });
    if (terms.length && found === 0) return;
    scored.push({ doc: doc, all: found === stems.length, score: score });
  });
  // Every word first, then any of them; gotchas before other records; then the score.
  scored.sort(function (a, b) {
    if (a.all !== b.all) return a.all ? -1 : 1;
    var ga = a.doc.k === "gotcha", gb = b.doc.k === "gotcha";
    if (ga !== gb) return ga ? -1 : 1;
    return b.score - a.score;
  });
  terms = stems;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // Text around the first match, with every term wrapped in <mark>.
  function snippet(doc) {
    var lower = doc.x.toLowerCase();
    var at = terms.reduce(function (best, t) {
      var i = lower.indexOf(t);
      return i >= 0 && (best < 0 || i < best) ? i : best;
    }, -1);
    var span = el("span", "snippet");
    if (at < 0) return span;
    var start = Math.max(0, at - 80);
    var end = Math.min(doc.x.length, at + 160);
    var text = doc.x.slice(start, end);
    var pattern = new RegExp("(" + terms.map(function (t) {
      return t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    }).join("|") + ")", "gi");
    if (start > 0) span.appendChild(document.createTextNode("… "));
    text.split(pattern).forEach(function (part, i) {
      span.appendChild(i % 2 ? el("mark", "", part) : document.createTextNode(part));
    });
    if (end < doc.x.length) span.appendChild(document.createTextNode(" …"));
    return span;
  }

  var hits = scored.map(function (h) { return h.doc; });
  status.textContent = hits.length + (hits.length === 1 ? " result." : " results.");
  hits.slice(0, 100).forEach(function (doc) {
    var item = el("li");
    var link = el("a", "", doc.t);
    link.href = doc.u;
    item.appendChild(link);
    item.appendChild(document.createTextNode(" "));
    if (doc.k === "gotcha") {
      item.appendChild(el("span", "badge sev-" + doc.s, doc.s));
      item.appendChild(document.createTextNode(" "));
      item.appendChild(el("span", "badge status-" + doc.st, doc.st));
    } else {
      item.appendChild(el("span", "badge kind", doc.k));
    }
    item.appendChild(el("br"));
    var meta = el("span", "meta");
    meta.appendChild(el("code", "", doc.id));
    item.appendChild(meta);
    if (terms.length) {
      item.appendChild(el("br"));
      item.appendChild(snippet(doc));
    }
    list.appendChild(item);
  });
})();
