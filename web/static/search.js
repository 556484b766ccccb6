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
  var terms = q.toLowerCase().split(/\s+/).filter(Boolean);
  var filtering = filters.engine || filters.severity || filters.status;
  if (!terms.length && !filtering) {
    status.textContent = "Type words to search " + index.docs.length + " records.";
    return;
  }

  function matches(doc) {
    if (filtering) {
      if (doc.k !== "gotcha") return false;
      if (filters.severity && doc.s !== filters.severity) return false;
      if (filters.status && doc.st !== filters.status) return false;
      if (filters.engine && doc.e.indexOf(filters.engine) < 0) return false;
    }
    var hay = (doc.t + " " + doc.id + " " + doc.x).toLowerCase();
    return terms.every(function (t) { return hay.indexOf(t) >= 0; });
  }

  function score(doc) {
    var title = doc.t.toLowerCase();
    return terms.reduce(function (s, t) { return s + (title.indexOf(t) >= 0 ? 3 : 1); }, 0);
  }

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

  var hits = index.docs.filter(matches).sort(function (a, b) { return score(b) - score(a); });
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
