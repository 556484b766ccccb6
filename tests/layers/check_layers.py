#!/usr/bin/env python3
"""kb/src's rooms, checked: every file sits in a folder that kb/src/README.md lists in the
order data flows, every public header (kb/include/kb) belongs to one folder (its README's
`Public headers:` line), and no include runs back up to a later folder.

usage: check_layers.py REPO
"""
import os
import re
import sys

repo = sys.argv[1] if len(sys.argv) > 1 else '.'
src = os.path.join(repo, 'kb', 'src')
inc_dir = os.path.join(repo, 'kb', 'include', 'kb')
problems = []

order = re.findall(r'^\d+\.\s+`([a-z]+)/`', open(os.path.join(src, 'README.md')).read(), re.M)
if len(order) < 5:
    sys.exit('kb/src/README.md lists no folders as "1. `core/` ..."')
rank = {f: i for i, f in enumerate(order)}

owner = {}  # public header name -> folder
for f in order:
    readme = os.path.join(src, f, 'README.md')
    if not os.path.isfile(readme):
        problems.append(f'kb/src/{f}/README.md: missing (what flows in, what flows out)')
        continue
    m = re.search(r'^Public headers:(.*)$', open(readme).read(), re.M)
    for h in re.findall(r'`kb/([a-z_]+\.h)`', m.group(1) if m else ''):
        if h in owner:
            problems.append(f'kb/{h} is claimed by both {owner[h]}/ and {f}/')
        owner[h] = f

for h in sorted(os.listdir(inc_dir)):
    if h.endswith('.h') and h not in owner:
        problems.append(f'kb/include/kb/{h}: no folder README lists it under "Public headers:"')
for h in owner:
    if not os.path.isfile(os.path.join(inc_dir, h)):
        problems.append(f'{owner[h]}/README.md names kb/{h}, which does not exist')

files = []  # (path relative to repo, folder)
for entry in sorted(os.listdir(src)):
    p = os.path.join(src, entry)
    if os.path.isfile(p):
        if entry != 'README.md':
            problems.append(f'kb/src/{entry}: sits at the top; put it in the folder of its stage')
        continue
    if entry not in rank:
        problems.append(f'kb/src/{entry}/: not listed in kb/src/README.md')
        continue
    for dirpath, _, names in os.walk(p):
        for n in sorted(names):
            if n.endswith(('.cpp', '.h')):
                files.append((os.path.join(dirpath, n), entry))
for h, f in owner.items():
    files.append((os.path.join(inc_dir, h), f))

include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
for path, folder in files:
    rel = os.path.relpath(path, repo)
    for name in include.findall(open(path, encoding='utf-8').read()):
        if name.startswith('kb/'):
            target = owner.get(name[3:])
            if target is None:
                continue  # reported above when the header exists
        else:
            first = name.split('/')[0]
            if '/' not in name or first not in rank:
                problems.append(f'{rel}: #include "{name}": write a kb/src header as "FOLDER/file.h"')
                continue
            if not os.path.isfile(os.path.join(src, name)):
                problems.append(f'{rel}: #include "{name}": no such file under kb/src')
                continue
            target = first
        if rank[target] > rank[folder]:
            problems.append(f'{rel} ({folder}/) includes "{name}" of {target}/, a later stage')

for p in problems:
    print(p)
print(f'layers: {len(order)} folders, {len(files)} files, {len(problems)} problems')
sys.exit(1 if problems else 0)
