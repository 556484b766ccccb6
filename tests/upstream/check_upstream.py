#!/usr/bin/env python3
"""The upstream corpus (tests/data/upstream) judged as EXPECTED.md says, strict xfail.

  python3 tests/upstream/check_upstream.py KB REPO [-v] [D1 D7 ...]

Runs `KB check FILES... --records REPO/records --format json` on every deployment of
tests/data/upstream/expected.yaml (the machine-readable copy of EXPECTED.md) and compares:
every expected finding reported with its verdict (hit / possible), no `not` gotcha
reported, the exit code as expected (absent: 0 or 1, that is kb read the deployment).
Services are compared too and their differences printed, but they do not decide.

A deployment with `pending` is one kb does not judge as expected yet: its differences are
printed and it does not fail the test; but if it matches, the test fails, so that whoever
fixed kb removes `pending` and the gain is kept. A deployment without `pending` must match.

Unread spellings: every flag, environment variable, JSON field and config-file key that kb
lists under "not understood" as "no settings record spells this flag / variable / field /
key" (the deployment's `not_understood` in the JSON output) must be a row of
tests/data/upstream/UNREAD.md, which says why it is not vocabulary; and every row there
must still be shown by some deployment (no stale rows; checked only when all deployments
run). Either failure fails the test, naming the spelling and where it is.
Exits 0 when all of this holds, 1 otherwise, 2 on a broken expected.yaml or UNREAD.md.

Python standard library only: expected.yaml is in a small YAML subset parsed here.
"""
import fnmatch
import json
import os
import re
import subprocess
import sys

DEFAULT_EXITS = (0, 1)


# ---------------------------------------------------------------- YAML subset parser


class ParseError(Exception):
    pass


def _strip_comment(line):
    """The line without a trailing # comment (a # outside double quotes, after a space)."""
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"' and (i == 0 or line[i - 1] != "\\"):
            quoted = not quoted
        elif ch == "#" and not quoted and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
    return line.rstrip()


def _split_flow(text, where):
    """Top-level comma-separated parts of the inside of a flow collection."""
    parts, depth, quoted, cur = [], 0, False, ""
    for i, ch in enumerate(text):
        if ch == '"' and (i == 0 or text[i - 1] != "\\"):
            quoted = not quoted
        elif not quoted and ch in "[{":
            depth += 1
        elif not quoted and ch in "]}":
            depth -= 1
        if ch == "," and depth == 0 and not quoted:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if depth != 0 or quoted:
        raise ParseError("%s: unbalanced flow collection" % where)
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _split_key(text):
    """(key, rest) when text is `key: rest` or `key:`, else None. Keys are plain."""
    m = re.match(r"^([A-Za-z0-9_.\-]+):(?:\s+(.*))?$", text)
    if not m:
        return None
    return m.group(1), (m.group(2) or "")


def _scalar(text, where):
    text = text.strip()
    if text.startswith('"'):
        if len(text) < 2 or not text.endswith('"'):
            raise ParseError("%s: unterminated string %s" % (where, text))
        return text[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    if text.startswith("["):
        if not text.endswith("]"):
            raise ParseError("%s: flow sequence must end on its line" % where)
        return [_scalar(p, where) for p in _split_flow(text[1:-1], where)]
    if text.startswith("{"):
        if not text.endswith("}"):
            raise ParseError("%s: flow mapping must end on its line" % where)
        out = {}
        for p in _split_flow(text[1:-1], where):
            kv = _split_key(p)
            if kv is None:
                raise ParseError("%s: not a key: value pair: %s" % (where, p))
            if kv[0] in out:
                raise ParseError("%s: duplicate key %s" % (where, kv[0]))
            out[kv[0]] = _scalar(kv[1], where) if kv[1] else None
        return out
    if text in ("", "null", "~"):
        return None
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(r"-?[0-9]+", text):
        return int(text)
    if text[0] in "'&*!|>%@`":
        raise ParseError("%s: unsupported YAML: %s" % (where, text))
    return text


def parse_yaml_subset(source, name):
    """Block mappings and sequences, scalars, one-line flow collections; comments."""
    lines = []
    for n, raw in enumerate(source.splitlines(), 1):
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise ParseError("%s:%d: tab in indentation" % (name, n))
        text = _strip_comment(raw)
        if text.strip():
            lines.append((n, len(text) - len(text.lstrip()), text.strip()))
    pos = [0]

    def block(indent):
        n, ind, text = lines[pos[0]]
        if text.startswith("- ") or text == "-":
            return seq(ind)
        return mapping(ind)

    def value_after(rest, ind, where):
        """The value of `key: rest` or `- rest` whose own indentation is ind."""
        if rest:
            return _scalar(rest, where)
        if pos[0] < len(lines) and lines[pos[0]][1] > ind:
            return block(lines[pos[0]][1])
        return None

    def mapping(ind):
        out = {}
        while pos[0] < len(lines):
            n, i, text = lines[pos[0]]
            if i < ind:
                break
            if i > ind:
                raise ParseError("%s:%d: unexpected indentation" % (name, n))
            kv = _split_key(text)
            if kv is None:
                raise ParseError("%s:%d: expected key: value" % (name, n))
            if kv[0] in out:
                raise ParseError("%s:%d: duplicate key %s" % (name, n, kv[0]))
            pos[0] += 1
            out[kv[0]] = value_after(kv[1], ind, "%s:%d" % (name, n))
        return out

    def seq(ind):
        out = []
        while pos[0] < len(lines):
            n, i, text = lines[pos[0]]
            if i < ind:
                break
            if i > ind or not (text.startswith("- ") or text == "-"):
                raise ParseError("%s:%d: expected a sequence item" % (name, n))
            rest = text[1:].strip()
            kv = _split_key(rest) if not rest.startswith(("{", "[", '"')) else None
            if kv is not None:
                # `- key: value` opens a mapping whose further keys sit at ind + 2.
                item_ind = ind + 2
                lines[pos[0]] = (n, item_ind, rest)
                out.append(mapping(item_ind))
            else:
                pos[0] += 1
                out.append(value_after(rest, ind, "%s:%d" % (name, n)))
        return out

    if not lines:
        return None
    result = block(lines[0][1])
    if pos[0] != len(lines):
        raise ParseError("%s:%d: unexpected content" % (name, lines[pos[0]][0]))
    return result


# ---------------------------------------------------------------- expectations


def load_expected(path, records):
    with open(path, encoding="utf-8") as f:
        doc = parse_yaml_subset(f.read(), path)
    gotchas = {
        os.path.splitext(n)[0]
        for n in os.listdir(os.path.join(records, "gotchas"))
        if n.endswith(".yaml")
    }
    deps = doc.get("deployments") if isinstance(doc, dict) else None
    if not isinstance(deps, list) or not deps:
        raise ParseError("%s: no deployments" % path)
    problems, seen = [], set()
    for d in deps:
        did = d.get("id")
        if not did or did in seen:
            problems.append("deployment id missing or repeated: %r" % did)
        seen.add(did)
        for k in d:
            if k not in ("id", "files", "services", "findings", "not", "exit", "pending"):
                problems.append("%s: unknown field %s" % (did, k))
        if not d.get("files"):
            problems.append("%s: no files" % did)
        for f in d.get("files") or []:
            if not os.path.isfile(os.path.join(os.path.dirname(path), f)):
                problems.append("%s: no such file %s" % (did, f))
        d["findings"] = d.get("findings") or []
        d["not"] = d.get("not") or []
        for f in d["findings"]:
            if f.get("gotcha") not in gotchas:
                problems.append("%s: no gotcha record %s" % (did, f.get("gotcha")))
            if f.get("verdict") not in ("hit", "possible"):
                problems.append("%s: verdict of %s is not hit or possible" % (did, f.get("gotcha")))
        for pat in d["not"]:
            if not fnmatch.filter(gotchas, pat):
                problems.append("%s: `not` %s names no gotcha record" % (did, pat))
            for f in d["findings"]:
                if fnmatch.fnmatchcase(f.get("gotcha", ""), pat):
                    problems.append("%s: %s is both a finding and `not`" % (did, f.get("gotcha")))
        if "exit" in d and not isinstance(d["exit"], int):
            problems.append("%s: exit is not a number" % did)
        if "pending" in d and not (isinstance(d["pending"], str) and d["pending"].strip()):
            problems.append("%s: pending needs a reason" % did)
    if problems:
        raise ParseError("%s:\n  %s" % (path, "\n  ".join(problems)))
    return deps


# ---------------------------------------------------------------- unread spellings

UNREAD_KINDS = {"flag": "flag", "variable": "env", "field": "field", "key": "key"}
_UNREAD_WHY = re.compile(r"^no settings record spells this (flag|variable|field|key)$")


def unread_spelling(kind, text):
    """The spelling of a not-understood item as UNREAD.md writes it: a flag without its
    value, a variable's name, `FLAG FIELD.PATH`, a config-file key's name."""
    text = text.strip()
    if kind == "env":
        m = re.match(r"^env\s+(\S+)", text)
    elif kind == "key":
        m = re.match(r"^(?:config file|values)\s+([^:\s]+)\s*:", text)
    elif kind == "field":
        m = re.match(r"^(\S+\s+[^=\s]+)", text)
    else:
        m = re.match(r"^([^=\s]+)", text)
    return m.group(1) if m else text


def unread_items(out):
    """(spelling, kind, file:line:column) of every not-understood item of the four kinds."""
    items = []
    for n in (out.get("deployment") or {}).get("not_understood") or []:
        m = _UNREAD_WHY.match(n.get("why") or "")
        if not m:
            continue
        kind = UNREAD_KINDS[m.group(1)]
        where = "%s:%s:%s" % (n.get("file", "?"), n.get("line", "?"), n.get("column", "?"))
        items.append((unread_spelling(kind, n.get("text") or ""), kind, where))
    return items


def load_unread(path):
    """{spelling: (kind, line number)} of UNREAD.md's table."""
    rows, problems = {}, []
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    header_seen = False
    for n, line in enumerate(lines, 1):
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not header_seen:
            if [c.lower() for c in cells[:3]] != ["spelling", "engine(s)", "kind"]:
                problems.append("%d: the table must start | spelling | engine(s) | kind | why ... |" % n)
            header_seen = True
            continue
        if all(re.fullmatch(r":?-+:?", c) for c in cells):
            continue
        if len(cells) != 4 or not all(cells):
            problems.append("%d: a row has four non-empty cells" % n)
            continue
        spelling = cells[0].strip("`").strip()
        if cells[2] not in UNREAD_KINDS.values():
            problems.append("%d: kind of %s is %s, not one of %s" % (
                n, spelling, cells[2], ", ".join(sorted(UNREAD_KINDS.values()))))
        if spelling in rows:
            problems.append("%d: %s is listed twice (also line %d)" % (n, spelling, rows[spelling][1]))
        rows[spelling] = (cells[2], n)
    if not header_seen:
        problems.append("no table")
    order = sorted(rows, key=lambda sp: rows[sp][1])
    if order != sorted(order):
        first = next(a for a, b in zip(order, sorted(order)) if a != b)
        problems.append("%d: rows are not sorted by spelling (from %s on)" % (rows[first][1], first))
    if problems:
        raise ParseError("%s:\n  %s" % (path, "\n  ".join(problems)))
    return rows


def check_unread(unread, shown, complete, path):
    """Failure lines: spellings shown but not listed, kinds that disagree, stale rows."""
    lines = []
    name = os.path.basename(path)
    for spelling in sorted(shown):
        kinds = sorted({k for k, _, _ in shown[spelling]})
        wheres = sorted({w for _, w, _ in shown[spelling]})
        deps = sorted({d for _, _, d in shown[spelling]}, key=lambda d: (len(d), d))
        at = "%s (%s)" % (wheres[0] + (" and %d more" % (len(wheres) - 1) if len(wheres) > 1 else ""),
                          " ".join(deps))
        if spelling not in unread:
            lines.append("%s (%s) at %s: no settings record spells it and %s does not list it:"
                         " add it to a records/settings record or justify it in %s" % (
                             spelling, "/".join(kinds), at, name, name))
        elif unread[spelling][0] not in kinds:
            lines.append("%s:%d: %s is listed as %s, kb shows it as %s at %s" % (
                name, unread[spelling][1], spelling, unread[spelling][0], "/".join(kinds), at))
    if complete:
        for spelling, (kind, n) in sorted(unread.items(), key=lambda kv: kv[1][1]):
            if spelling not in shown:
                lines.append("%s:%d: stale row: no deployment shows %s (%s) as not understood"
                             " any more: delete the row" % (name, n, spelling, kind))
    return lines


# ---------------------------------------------------------------- comparison


def _model_key(m):
    return (m or "").rstrip("/").split("/")[-1].lower()


def _service_matches(exp, got):
    if exp.get("role") != got.get("role"):
        return False
    have = {e.get("engine"): e.get("version") for e in got.get("engines") or []}
    for eng, ver in (exp.get("engines") or {}).items():
        if eng not in have:
            return False
        if ver == "unknown":
            if have[eng] is not None:
                return False
        elif ver is not None and str(ver) != have[eng]:
            return False
    if "model" in exp and _model_key(exp["model"]) != _model_key(got.get("model")):
        return False
    return True


def _describe_service(s, got=False):
    engines = s.get("engines") or ([] if got else {})
    if got:
        engs = ["%s %s" % (e.get("engine"), e.get("version") or "?") for e in engines]
    else:
        engs = ["%s %s" % (k, "?" if v == "unknown" else v) for k, v in engines.items()]
    model = (s.get("model") or "?") if got or "model" in s else "-"
    return "%s [%s] model %s" % (s.get("role"), ", ".join(engs) or "no engine", model)


def compare_services(expected, got):
    """Differences between the expected services and kb's, as lines."""
    left = list(got)
    missing = []
    for exp in expected or []:
        for i, g in enumerate(left):
            if _service_matches(exp, g):
                del left[i]
                break
        else:
            missing.append(exp)
    lines = ["service expected, not built: " + _describe_service(s) for s in missing]
    lines += ["service built, not expected: " + _describe_service(s, got=True) for s in left]
    return lines


def judge(kb, repo, upstream, dep):
    """(matches, differences, notes, unread items) of one deployment."""
    cmd = [kb, "check", *dep["files"], "--records", os.path.join(repo, "records"),
           "--format", "json"]
    run = subprocess.run(cmd, cwd=upstream, capture_output=True, text=True, timeout=120)
    try:
        out = json.loads(run.stdout)
    except ValueError:
        out = {}
    reported = {}
    for f in out.get("findings") or []:
        gid = f.get("id", "").split("/", 1)[-1]
        reported[gid] = "possible" if f.get("possible") else "hit"
    diffs = []
    for f in dep["findings"]:
        got = reported.get(f["gotcha"])
        if got is None:
            diffs.append("missing %s (expected %s)" % (f["gotcha"], f["verdict"].upper()))
        elif got != f["verdict"]:
            diffs.append("%s is %s, expected %s" % (f["gotcha"], got.upper(), f["verdict"].upper()))
    for gid in sorted(reported):
        for pat in dep["not"]:
            if fnmatch.fnmatchcase(gid, pat):
                diffs.append("extra %s (%s), expected NOT" % (gid, reported[gid].upper()))
                break
    want = (dep["exit"],) if "exit" in dep else DEFAULT_EXITS
    if run.returncode not in want:
        errs = [d.get("code", "?") for d in out.get("diagnostics") or []
                if d.get("severity") == "error"]
        why = ", ".join(sorted(set(errs))) or (run.stderr.strip().splitlines() or ["no output"])[-1]
        diffs.append("exit %d, expected %s (%s)" % (run.returncode, " or ".join(map(str, want)), why))
    notes = []
    named = {f["gotcha"] for f in dep["findings"]}
    for gid in sorted(reported):
        if gid not in named and not any(fnmatch.fnmatchcase(gid, p) for p in dep["not"]):
            notes.append("not in EXPECTED.md, not judged: %s (%s)" % (gid, reported[gid].upper()))
    services = (out.get("deployment") or {}).get("services") or []
    notes += compare_services(dep.get("services"), services)
    return not diffs, diffs, notes, unread_items(out)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("-")]
    verbose = "-v" in argv[1:]
    if len(args) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    kb, repo, only = os.path.abspath(args[0]), os.path.abspath(args[1]), set(args[2:])
    upstream = os.path.join(repo, "tests", "data", "upstream")
    try:
        deps = load_expected(os.path.join(upstream, "expected.yaml"), os.path.join(repo, "records"))
    except (ParseError, OSError) as e:
        print("upstream: expected.yaml: %s" % e, file=sys.stderr)
        return 2
    unread_path = os.path.join(upstream, "UNREAD.md")
    try:
        unread = load_unread(unread_path)
    except (ParseError, OSError) as e:
        print("upstream: UNREAD.md: %s" % e, file=sys.stderr)
        return 2
    if only:
        deps = [d for d in deps if d["id"] in only]
    right = pending = 0
    failures = []
    shown = {}
    for dep in deps:
        ok, diffs, notes, unread_here = judge(kb, repo, upstream, dep)
        for spelling, kind, where in unread_here:
            shown.setdefault(spelling, []).append((kind, where, dep["id"]))
        is_pending = "pending" in dep
        if ok and not is_pending:
            right += 1
            status = "ok"
        elif ok and is_pending:
            right += 1
            status = "FAIL (now matches EXPECTED.md: remove its `pending` from expected.yaml)"
            failures.append(dep["id"])
        elif is_pending:
            pending += 1
            status = "pending: " + dep["pending"]
        else:
            status = "FAIL (does not match EXPECTED.md)"
            failures.append(dep["id"])
        print("%s %s  [%s]" % (dep["id"], status, " ".join(dep["files"])))
        for line in diffs:
            print("    " + line)
        if verbose or not ok or is_pending:
            for line in notes:
                print("    (" + line + ")")
    unread_failures = check_unread(unread, shown, not only, unread_path)
    for line in unread_failures:
        print("unread: FAIL " + line)
    print("unread: %d spellings not vocabulary, %d listed in UNREAD.md%s" % (
        len(shown), len(unread), "" if only else " (stale rows checked)"))
    if unread_failures:
        failures.append("unread(%d)" % len(unread_failures))
    print("upstream: %d/%d right, %d pending%s" % (
        right, len(deps), pending,
        ", FAILED: " + " ".join(failures) if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
