#!/usr/bin/env python3
"""check-layers.py BUILD_DIR - the layers of SPEC.md §3, checked on the
object files: every call from one folder of src/ into another goes to a
layer below it (LAYERS), and no folder has a circle of files calling each
other. The compile already refuses upward #includes (src/CMakeLists.txt);
this catches calls through public headers and extern declarations.
Exit 0 when clean; otherwise each violation is printed and the exit is 1.
"""
import collections
import os
import subprocess
import sys

# layer -> the layers it may call (directly; below-ness is transitive).
LAYERS = {
    'common': [],
    'rowkey': ['common'],
    'filter': ['common'],
    'model': ['common', 'filter'],
    'placement': [],
    'keyviz': ['common', 'rowkey', 'model', 'placement'],
    'engine': ['common', 'filter', 'rowkey', 'model', 'placement'],
    'wire': ['common', 'model'],
    'remote': ['common', 'filter', 'model', 'wire'],
    'bigtable': ['common', 'filter', 'model'],
    # table feeds keyviz's key samplers (issue 17: the live heatmap by key)
    'table': ['common', 'model', 'keyviz', 'engine', 'remote', 'bigtable'],
    'salted': ['common', 'rowkey', 'model', 'table'],
    'txn': ['common', 'model', 'table'],
    'datastore': ['common', 'rowkey', 'model', 'table', 'txn'],
    'shell': ['common'],
    'io': ['common', 'rowkey', 'model', 'wire'],
    'server': ['common', 'rowkey', 'filter', 'model', 'keyviz', 'table',
               'salted', 'txn', 'datastore', 'wire'],
}


def below(layer, seen=None):
    seen = set() if seen is None else seen
    for d in LAYERS.get(layer, []):
        if d not in seen:
            seen.add(d)
            below(d, seen)
    return seen


def objects(build):
    root = os.path.join(build, 'src', 'CMakeFiles')
    for d in sorted(os.listdir(root)):
        if not d.startswith('sbx_') or not d.endswith('.dir'):
            continue
        for base, _, files in os.walk(os.path.join(root, d)):
            for f in files:
                if f.endswith('.c.o'):
                    path = os.path.join(base, f)
                    rel = os.path.relpath(path, os.path.join(root, d))
                    layer = d[len('sbx_'):-len('.dir')]
                    if not rel.startswith(layer + '/'):
                        # generated into the build tree (the /ui assets,
                        # the Bigtable backend's protobuf-c messages)
                        rel = layer + '/' + rel.replace('/', '_')
                    yield rel[:-2], path


def main():
    build = sys.argv[1]
    defs, uses = {}, collections.defaultdict(set)
    for name, path in objects(build):
        out = subprocess.run(['nm', path], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in 'TDBR':
                defs[p[2]] = name
            elif len(p) == 2 and p[0] == 'U':
                uses[name].add(p[1])
    if not uses:
        print('check-layers: no object files under', build)
        return 1
    bad = 0
    edges = collections.defaultdict(set)
    for f, syms in sorted(uses.items()):
        lf = f.split('/')[0]
        for s in sorted(syms):
            d = defs.get(s)
            if not d or d == f:
                continue
            ld = d.split('/')[0]
            if ld == lf:
                edges[f].add(d)
            elif lf not in LAYERS or ld not in below(lf):
                print(f'upward or unlisted call: {f} -> {d} ({s})')
                bad += 1
    # circles of files inside a folder (Tarjan's strongly connected parts)
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in list(edges):
        if v not in index:
            visit(v)
    for comp in comps:
        print('files calling each other in a circle:', ' '.join(comp))
        bad += 1
    print(f'check-layers: {len(uses)} files, {bad} problem(s)')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
