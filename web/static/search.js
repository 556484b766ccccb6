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
  // ---- Ranking: the server's search (kb/src/store/store_search.cpp over SQLite FTS5,
  // tokenize 'porter unicode61 remove_diacritics 2', bm25 with its column weights),
  // computed here over the same columns, so both give the same top hits for a query.
  var STOP = ("a an and are as at be been but by can do does for from has have how i if in " +
              "into is it its me my of on or our so than that the their then there these " +
              "this to was we were what when where which while who why will with you your " +
              "gets get got after again").split(" ");
  // Terms: split at ASCII space and NUL, each holding a letter, digit or non-ASCII
  // character, at most 32; stop words dropped unless that leaves none.
  var raw = q.split(/[ \t\n\v\f\r\0]+/).filter(function (t) {
    return /[A-Za-z0-9]|[^\x00-\x7f]/.test(t);
  }).slice(0, 32);
  var kept = raw.filter(function (t) { return STOP.indexOf(t.toLowerCase()) < 0; });
  var terms = kept.length ? kept : raw;
  var filtering = filters.engine || filters.severity || filters.status;
  if (!terms.length && !filtering) {
    status.textContent = "Type words to search " + index.docs.length + " records.";
    return;
  }

  // Porter's stemmer as FTS5 applies it to each token of 3 to 64 bytes.
  function isVowel(c, yIsVowel) {
    return c === "a" || c === "e" || c === "i" || c === "o" || c === "u" || (yIsVowel && c === "y");
  }
  // The index after the first vowel-consonant run of w[0, n), or 0 when there is none.
  function gobbleVC(w, from, n, prevCons) {
    var cons = prevCons, i;
    for (i = from; i < n; i++) { cons = !isVowel(w[i], cons); if (!cons) break; }
    for (i++; i < n; i++) { cons = !isVowel(w[i], cons); if (cons) return i + 1; }
    return 0;
  }
  function mGt0(w, n) { return gobbleVC(w, 0, n, false) > 0; }
  function mGt1(w, n) { var k = gobbleVC(w, 0, n, false); return k > 0 && gobbleVC(w, k, n, true) > 0; }
  function mEq1(w, n) { var k = gobbleVC(w, 0, n, false); return k > 0 && gobbleVC(w, k, n, true) === 0; }
  function oStar(w, n) {
    var last = w[n - 1];
    if (last === "w" || last === "x" || last === "y") return false;
    var mask = 0, cons = false;
    for (var i = 0; i < n; i++) { cons = !isVowel(w[i], cons); mask = ((mask << 1) + (cons ? 1 : 0)) & 7; }
    return mask === 5;
  }
  function hasVowel(w, n) {
    for (var i = 0; i < n; i++) if (isVowel(w[i], i > 0)) return true;
    return false;
  }
  function endsWith(w, n, suf) {
    return n > suf.length && w.slice(n - suf.length, n).join("") === suf;
  }
  // A step's rules: [suffix, condition, replacement]; the first suffix that ends the word
  // (with something before it) decides, whether its condition holds or not.
  function applyRules(w, n, rules) {
    for (var i = 0; i < rules.length; i++) {
      var r = rules[i];
      if (!endsWith(w, n, r[0])) continue;
      var stem = n - r[0].length;
      if (!r[1](w, stem)) return n;
      w.length = stem;
      for (var j = 0; j < r[2].length; j++) w.push(r[2][j]);
      return w.length;
    }
    return n;
  }
  function mGt1ST(w, n) { return (w[n - 1] === "s" || w[n - 1] === "t") && mGt1(w, n); }
  var STEP2 = [["ational", mGt0, "ate"], ["tional", mGt0, "tion"], ["enci", mGt0, "ence"],
    ["anci", mGt0, "ance"], ["izer", mGt0, "ize"], ["logi", mGt0, "log"], ["bli", mGt0, "ble"],
    ["alli", mGt0, "al"], ["entli", mGt0, "ent"], ["eli", mGt0, "e"], ["ousli", mGt0, "ous"],
    ["ization", mGt0, "ize"], ["ation", mGt0, "ate"], ["ator", mGt0, "ate"], ["alism", mGt0, "al"],
    ["iveness", mGt0, "ive"], ["fulness", mGt0, "ful"], ["ousness", mGt0, "ous"],
    ["aliti", mGt0, "al"], ["iviti", mGt0, "ive"], ["biliti", mGt0, "ble"]];
  var STEP3 = [["ical", mGt0, "ic"], ["ness", mGt0, ""], ["icate", mGt0, "ic"], ["iciti", mGt0, "ic"],
    ["ful", mGt0, ""], ["ative", mGt0, ""], ["alize", mGt0, "al"]];
  var STEP4 = [["al", mGt1, ""], ["ance", mGt1, ""], ["ence", mGt1, ""], ["er", mGt1, ""],
    ["ic", mGt1, ""], ["able", mGt1, ""], ["ible", mGt1, ""], ["ant", mGt1, ""],
    ["ement", mGt1, ""], ["ment", mGt1, ""], ["ent", mGt1, ""], ["ion", mGt1ST, ""],
    ["ou", mGt1, ""], ["ism", mGt1, ""], ["ate", mGt1, ""], ["iti", mGt1, ""], ["ous", mGt1, ""],
    ["ive", mGt1, ""], ["ize", mGt1, ""]];
  // A step's rules are tried only among those whose suffix shares the word's last but one
  // letter (FTS5 switches on it), in the order listed.
  function step(w, rules) {
    var n = w.length, key = w[n - 2];
    return applyRules(w, n, rules.filter(function (r) { return r[0][r[0].length - 2] === key; }));
  }
  function porter(token) {
    var bytes = unescape(encodeURIComponent(token)).length;
    if (bytes < 3 || bytes > 64) return token;
    var w = token.split(""), n = w.length;
    // Step 1a.
    if (w[n - 1] === "s") {
      if (w[n - 2] === "e") {
        if ((n > 4 && w[n - 4] === "s" && w[n - 3] === "s") || (n > 3 && w[n - 3] === "i")) n -= 2;
        else n -= 1;
      } else if (w[n - 2] !== "s") {
        n -= 1;
      }
      w.length = n;
    }
    // Step 1b.
    var cut = false;
    if (w[n - 2] === "e") {
      if (endsWith(w, n, "eed")) {
        if (mGt0(w, n - 3)) { w.length = n - 1; n -= 1; }
      } else if (endsWith(w, n, "ed") && hasVowel(w, n - 2)) {
        n -= 2; w.length = n; cut = true;
      }
    } else if (w[n - 2] === "n" && endsWith(w, n, "ing") && hasVowel(w, n - 3)) {
      n -= 3; w.length = n; cut = true;
    }
    if (cut) {
      var key = w[n - 2], grown = false;
      if ((key === "a" && endsWith(w, n, "at")) || (key === "b" && endsWith(w, n, "bl")) ||
          (key === "i" && endsWith(w, n, "iz"))) {
        w.push("e"); n += 1; grown = true;
      }
      if (!grown) {
        var c = w[n - 1];
        if (!isVowel(c, false) && c !== "l" && c !== "s" && c !== "z" && c === w[n - 2]) {
          n -= 1; w.length = n;
        } else if (mEq1(w, n) && oStar(w, n)) {
          w.push("e"); n += 1;
        }
      }
    }
    // Step 1c.
    if (w[n - 1] === "y" && hasVowel(w, n - 1)) w[n - 1] = "i";
    step(w, STEP2);
    step(w, STEP3);
    step(w, STEP4);
    n = w.length;
    // Step 5a, 5b.
    if (w[n - 1] === "e" && (mGt1(w, n - 1) || (mEq1(w, n - 1) && !oStar(w, n - 1)))) {
      n -= 1; w.length = n;
    }
    if (n > 1 && w[n - 1] === "l" && w[n - 2] === "l" && mGt1(w, n - 1)) w.length = n - 1;
    return w.join("");
  }
  // unicode61: runs of letters, digits and private-use characters (marks within a run
  // kept), folded to lower case without diacritics; each stemmed.
  var TOKEN = /[\p{L}\p{N}\p{Co}][\p{L}\p{N}\p{Co}\p{Mn}]*/gu;
  function tokens(text) {
    var out = [], m;
    TOKEN.lastIndex = 0;
    while ((m = TOKEN.exec(text))) {
      var t = m[0];
      t = /^[\x00-\x7f]*$/.test(t) ? t.toLowerCase()
                                   : t.normalize("NFD").replace(/\p{Mn}/gu, "").toLowerCase();
      if (t) out.push(porter(t));
    }
    return out;
  }

  // Each record's columns as tokens, and the lengths bm25 weighs a match by.
  var WEIGHTS = [10, 4, 2, 2, 1, 1];
  var docs = index.docs.map(function (doc) {
    var cols = doc.c.map(tokens), len = 0;
    cols.forEach(function (c) { len += c.length; });
    return { cols: cols, len: len };
  });
  var total = 0;
  docs.forEach(function (d) { total += d.len; });
  var avgdl = docs.length ? total / docs.length : 1;

  // Where each column holds `phrase` (its tokens in a row; the last one a prefix when asked).
  function counts(d, phrase, prefix) {
    var out = [], any = 0;
    d.cols.forEach(function (col) {
      var n = 0;
      if (phrase.length) {
        for (var i = 0; i + phrase.length <= col.length; i++) {
          var k = 0;
          for (; k < phrase.length; k++) {
            var last = k === phrase.length - 1;
            if (prefix && last ? col[i + k].lastIndexOf(phrase[k], 0) !== 0 : col[i + k] !== phrase[k]) break;
          }
          if (k === phrase.length) n++;
        }
      }
      out.push(n);
      any += n;
    });
    return any ? out : null;
  }
  // Spellings search takes as one word (index.syn, kb/store.h search_synonyms): `term`
  // first, then the own word (the first) of every group it is in, at most 16, each once. A
  // word is looked up in ASCII lower case with `-` and spaces as `_`, then without a
  // plural `es` or `s`.
  function fold(w) {
    return w.replace(/[A-Z]/g, function (c) { return c.toLowerCase(); }).replace(/[-\t\n\v\f\r ]/g, "_");
  }
  var byWord = {};
  (index.syn || []).forEach(function (group, g) {
    group.forEach(function (w) {
      var f = fold(w);
      if (!Object.prototype.hasOwnProperty.call(byWord, f)) byWord[f] = [];
      if (byWord[f].indexOf(g) < 0) byWord[f].push(g);
    });
  });
  function alternatives(term) {
    var out = [term], f = fold(term), bytes = unescape(encodeURIComponent(f)).length;
    var has = function (k) { return Object.prototype.hasOwnProperty.call(byWord, k); };
    var key = has(f) ? f
      : bytes > 4 && /es$/.test(f) && has(f.slice(0, -2)) ? f.slice(0, -2)
      : bytes > 3 && /s$/.test(f) && has(f.slice(0, -1)) ? f.slice(0, -1) : null;
    if (key === null) return out;
    var seen = {};
    seen[f] = true;
    seen[key] = true;  // `hangs` is searched as `hang` already (stems)
    byWord[key].slice().sort(function (a, b) { return a - b; }).some(function (g) {
      if (out.length === 16) return true;
      var w = index.syn[g][0], k = fold(w);
      if (!seen[k]) { seen[k] = true; out.push(w); }
      return false;
    });
    return out;
  }

  // Two words that join into a name written as one (index.join, kb/store.h
  // SearchSynonyms::join_pairs: `multi connector` -> `MultiConnector`): the name joins the
  // first word's spellings, unless one of them folds to it or there are 16.
  function joinKey(w) { return /^[A-Za-z0-9]+$/.test(w) ? w.toLowerCase() : ""; }
  function joinPairs(groups) {
    var join = index.join || {};
    for (var i = 0; i + 1 < terms.length && i < groups.length; i++) {
      var a = joinKey(terms[i]), b = joinKey(terms[i + 1]);
      if (!a || !b || !Object.prototype.hasOwnProperty.call(join, a + b)) continue;
      var name = join[a + b], f = fold(name);
      if (groups[i].length >= 16) continue;
      if (!groups[i].some(function (w) { return fold(w) === f; })) groups[i].push(name);
    }
    return groups;
  }

  var KEPT = 256, LIMIT = 200;
  // One FTS5 query's best rows, by bm25: each group a term's spellings, one phrase each;
  // a row holds every term (`all`: some spelling of each) or any spelling. Every phrase of
  // the query counts in bm25, as in FTS5. The best 256 kept and gotchas put before the
  // other records among them.
  function ranked(groups, prefixLast, all) {
    var phrases = [], owner = [];
    groups.forEach(function (g, gi) {
      g.forEach(function (ph, k) {
        phrases.push({ ph: ph, prefix: prefixLast && gi === groups.length - 1 && k === 0 });
        owner.push(gi);
      });
    });
    var found = phrases.map(function (p) {
      return docs.map(function (d) { return counts(d, p.ph, p.prefix); });
    });
    var idf = found.map(function (rows) {
      var hit = rows.filter(Boolean).length;
      var v = Math.log((docs.length - hit + 0.5) / (hit + 0.5));
      return v <= 0 ? 1e-6 : v;
    });
    var rows = [];
    docs.forEach(function (d, r) {
      var have = 0, score = 0, held = {};
      phrases.forEach(function (p, i) {
        var c = found[i][r];
        if (!c) return;
        if (!held[owner[i]]) { held[owner[i]] = true; have++; }
        var f = 0;
        c.forEach(function (n, col) { f += n * WEIGHTS[col]; });
        score += idf[i] * (f * 2.2) / (f + 1.2 * (0.25 + 0.75 * d.len / avgdl));
      });
      if (all ? have === groups.length : have > 0) rows.push({ r: r, score: score });
    });
    rows.sort(function (a, b) { return b.score - a.score || a.r - b.r; });
    rows = rows.slice(0, KEPT);
    return rows.filter(function (x) { return index.docs[x.r].k === "gotcha"; })
      .concat(rows.filter(function (x) { return index.docs[x.r].k !== "gotcha"; }));
  }
  var hitRows = [], seen = {};
  function take(rows) {
    rows.forEach(function (x) {
      if (hitRows.length < LIMIT && !seen[x.r]) { seen[x.r] = true; hitRows.push(x.r); }
    });
  }
  if (terms.length) {
    // A pasted id finds its record first: `engines/x`, or a gotcha's slug (a word like
    // `vllm` is a search, not the engine's page).
    if (terms.length === 1) {
      var id = terms[0].toLowerCase(), named = -1;
      ["", "gotchas/"].some(function (ns) {
        index.docs.some(function (doc, r) { if (doc.id === ns + id) { named = r; return true; } return false; });
        return named >= 0;
      });
      if (named >= 0) { seen[named] = true; hitRows.push(named); }
    }
    // Each term with its other spellings: one phrase per spelling, grouped by term.
    var groups = joinPairs(terms.map(alternatives)).map(function (g) { return g.map(tokens); });
    take(ranked(groups, false, true));
    // The last word may be the start of one when it has 3 characters, and so has its
    // last token, the one the prefix applies to (`router's` is not "router" then any
    // word starting with "s").
    var chars = Array.from(terms[terms.length - 1]).length;
    var own = groups[groups.length - 1][0];
    if (own.length) chars = Math.min(chars, Array.from(own[own.length - 1]).length);
    if (hitRows.length < LIMIT && chars >= 3) take(ranked(groups, true, true));
    if (hitRows.length < LIMIT && terms.length > 1) take(ranked(groups, false, false));
  } else {
    index.docs.forEach(function (doc, r) { if (doc.k === "gotcha") hitRows.push(r); });
  }
  var hits = hitRows.map(function (r) { return index.docs[r]; }).filter(function (doc) {
    if (!filtering) return true;
    if (doc.k !== "gotcha") return false;
    if (filters.severity && doc.s !== filters.severity) return false;
    if (filters.status && doc.st !== filters.status) return false;
    if (filters.engine && doc.e.indexOf(filters.engine) < 0) return false;
    return true;
  });
  // Words to mark in snippets: the terms as typed, lowered.
  var marks = terms.map(function (t) { return t.toLowerCase(); }).filter(function (t) {
    return /[a-z0-9]/.test(t);
  });

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // Text around the first match, with every term wrapped in <mark>.
  function snippet(doc) {
    var body = doc.c.slice(1).filter(Boolean).join(" ");
    var lower = body.toLowerCase();
    var at = marks.reduce(function (best, t) {
      var i = lower.indexOf(t);
      return i >= 0 && (best < 0 || i < best) ? i : best;
    }, -1);
    var span = el("span", "snippet");
    if (at < 0) return span;
    var start = Math.max(0, at - 80);
    var end = Math.min(body.length, at + 160);
    var text = body.slice(start, end);
    var pattern = new RegExp("(" + marks.map(function (t) {
      return t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    }).join("|") + ")", "gi");
    if (start > 0) span.appendChild(document.createTextNode("… "));
    text.split(pattern).forEach(function (part, i) {
      span.appendChild(i % 2 ? el("mark", "", part) : document.createTextNode(part));
    });
    if (end < body.length) span.appendChild(document.createTextNode(" …"));
    return span;
  }

  status.textContent = hits.length + (hits.length === 1 ? " result." : " results.");
  hits.slice(0, 100).forEach(function (doc) {
    var item = el("li");
    var link = el("a", "", doc.c[0]);
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
    if (marks.length) {
      item.appendChild(el("br"));
      item.appendChild(snippet(doc));
    }
    list.appendChild(item);
  });
})();
