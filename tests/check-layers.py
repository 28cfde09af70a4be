#!/usr/bin/python3
"""The engine's layers and the elements' boundary, checked in the sources.

  tests/check-layers.py PLUGIN_DIR     check plugin/ (exit 1 on a violation)
  tests/check-layers.py --self-test    check that each rule catches its fault

Rules (plugin/engine/meson.build draws them):
  * engine files live in one layer folder: util, host, device, plan,
    loudness, render, and the public headers in include/; each of these
    folders exists;
  * a file includes headers of its own layer, of the layers below it and of
    include/ only, and calls only functions defined there:
        util   <- host                    (the C analysis on the CPU)
        util   <- device <- plan          (plan sees host too)
                         <- render        (plan and render never meet)
        util, host, device <- loudness    (and of plan/ only the
                                           scheduler's round hooks,
                                           gpufft-merge.h: THROUGH)
    also through the headers it includes, and their includes;
  * util/ and host/ use no Vulkan: no Vulkan header, no vk* call;
  * include/ headers include no internal header;
  * the elements (plugin/ outside engine/) include no engine header outside
    include/, call no engine function that include/ does not declare, and
    call no Vulkan function;
  * the folders the rules speak of exist (a missing one fails the check);
  * in plugin/ outside engine/: every file is in common/ (what several
    element families use), in a family's folder (spectrum/, spectrogram/,
    loudness/) or is gstgpufft.c (the registration); common/ includes and
    calls nothing of a family; no family includes or calls another's files
    (so no loop between families); an element's main header
    (gstgpufftspectrum.h, gstgpuspectrum.h, gstgpufftspectrogram.h,
    gstgpuloudness.h) is included only by gstgpufft.c and the element's own
    files, and nothing but gstgpufft.c calls into its main file; a
    NAME-private.h header is included only by NAME's own files (NAME.c,
    NAME-*.c);
  * within a layer, no two files call each other, directly or in a loop
    (each layer's files form a hierarchy too).
Function definitions are found GNU style: the name at the start of a line,
followed by " (", the return type on the line before. Calls are names
followed by "(" in code without comments and strings.
"""
import os
import re
import sys
import tempfile

# The plugin's folders outside the engine: what several element families
# use, and one folder per family; each element's main file (its
# registration's header) in its family's folder.
COMMON = 'common'
FAMILIES = ('spectrum', 'spectrogram', 'loudness')
ELEMENT_MAINS = {'gstgpufftspectrum': 'spectrum', 'gstgpuspectrum': 'spectrum',
                 'gstgpufftspectrogram': 'spectrogram',
                 'gstgpuloudness': 'loudness'}
ENTRY = 'gstgpufft.c'

ALLOWED = {
    'util': {'util'},
    'host': {'util', 'host'},
    'device': {'util', 'device'},
    'plan': {'util', 'host', 'device', 'plan'},
    'loudness': {'util', 'host', 'device', 'loudness'},
    'render': {'util', 'device', 'render'},
}
LAYERS = list(ALLOWED)
# The headers through which a layer uses a layer ALLOWED does not give it:
# the functions they declare, and nothing else of that layer.
THROUGH = {
    'loudness': {'plan': {'gpufft-merge.h'}},
}
# Layers that use no Vulkan (no Vulkan header, no vk* call).
NO_VULKAN = {'util', 'host'}
VULKAN_HEADERS = ('vulkan/', 'gpufft-vk.h')


def strip_code(text):
    """Removes comments, strings and character literals."""
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(\\.|[^'\\\n])*'", "''", text)
    return text


def definitions(text):
    """Names of the non-static functions a .c file defines."""
    names = set()
    lines = text.split('\n')
    for i, line in enumerate(lines):
        m = re.match(r'([a-z_][a-z0-9_]*) \(', line)
        if m and i > 0 and 'static' not in lines[i - 1] \
                and not lines[i - 1].rstrip().endswith((';', ',', '{')) \
                and lines[i - 1].strip():
            names.add(m.group(1))
    return names


def calls(text):
    return set(re.findall(r'\b([A-Za-z_]\w*)\s*\(', strip_code(text)))


def includes(text):
    return re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, flags=re.M)


def declared(text):
    """Function names declared in a header."""
    code = strip_code(text)
    return set(re.findall(r'\b([a-z_]\w*)\s*\(', code))


def scan(plugin):
    engine = os.path.join(plugin, 'engine')
    files = {}            # path -> (layer or 'include' or 'element', text)
    for root, _, names in os.walk(plugin):
        for name in sorted(names):
            if not name.endswith(('.c', '.h')):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, engine)
            if rel.startswith('..'):
                kind = 'element'
            else:
                kind = rel.split(os.sep)[0]
                if kind not in ALLOWED and kind != 'include':
                    kind = 'engine-root'
            with open(path, encoding='utf-8') as f:
                files[path] = (kind, f.read())
    return files


def check(plugin):
    errors = check_folders(plugin)
    files = scan(plugin)
    header_kind = {}
    for path, (kind, _) in files.items():
        if path.endswith('.h') and kind != 'element':
            header_kind[os.path.basename(path)] = kind
    defined_in = {}
    for path, (kind, text) in files.items():
        if path.endswith('.c') and kind != 'element':
            for name in definitions(text):
                defined_in[name] = (kind, path)
    public = set()
    for path, (kind, text) in files.items():
        if kind == 'include':
            public |= declared(text)

    def rel(p):
        return os.path.relpath(p, plugin)

    for path, (kind, text) in files.items():
        if kind == 'engine-root':
            errors.append(f'{rel(path)}: an engine file outside the layer '
                          f'folders ({", ".join(LAYERS)}, include)')
            continue
        for inc in includes(text):
            hk = header_kind.get(os.path.basename(inc))
            if hk is None:
                continue            # a system, shader or element header
            if kind == 'element' and hk != 'include':
                errors.append(f'{rel(path)}: includes the engine\'s internal '
                              f'header {inc} ({hk}/)')
            elif kind == 'include' and hk != 'include':
                errors.append(f'{rel(path)}: a public header includes the '
                              f'internal header {inc} ({hk}/)')
            elif kind in ALLOWED and hk != 'include' \
                    and hk not in ALLOWED[kind] \
                    and os.path.basename(inc) not in \
                    THROUGH.get(kind, {}).get(hk, ()):
                errors.append(f'{rel(path)}: {kind}/ includes {inc} from '
                              f'{hk}/, a layer it may not use')
        for name in sorted(calls(text)):
            if kind == 'element' and re.match(r'vk[A-Z]', name):
                errors.append(f'{rel(path)}: an element calls Vulkan ({name})')
            if name not in defined_in:
                continue
            dk, dpath = defined_in[name]
            if kind == 'element' and name not in public:
                errors.append(f'{rel(path)}: calls {name} ({rel(dpath)}), '
                              f'which include/ does not declare')
            elif kind in ALLOWED and dk in ALLOWED and dk not in ALLOWED[kind] \
                    and name not in through_names(files, kind, dk):
                errors.append(f'{rel(path)}: {kind}/ calls {name}, defined '
                              f'in {rel(dpath)} ({dk}/, a layer it may not '
                              f'use)')

    errors += check_plugin_units(plugin, files)

    errors += check_engine(plugin, files, header_kind, defined_in)

    # loops between the files of one layer
    graph = {}
    for path, (kind, text) in files.items():
        if kind in ALLOWED and path.endswith('.c'):
            graph[path] = set()
            for name in calls(text):
                if name in defined_in:
                    dk, dpath = defined_in[name]
                    if dk == kind and dpath != path:
                        graph[path].add(dpath)
    for scc in strongly_connected(graph):
        if len(scc) > 1:
            errors.append('files that call each other in a loop: ' +
                          ', '.join(sorted(rel(p) for p in scc)))
    return errors


def check_folders(plugin):
    """The folders the rules speak of must be there: a missing one (or a
    mistyped PLUGIN_DIR) is a failure, not a pass over nothing."""
    errors = []
    wanted = [os.path.join('engine', d) for d in LAYERS + ['include']]
    wanted += [COMMON] + list(FAMILIES)
    for d in wanted:
        if not os.path.isdir(os.path.join(plugin, d)):
            errors.append(f'{d}/: a folder the rules expect is missing')
    if not os.path.isfile(os.path.join(plugin, ENTRY)):
        errors.append(f"{ENTRY}: the plugin's registration is missing")
    return errors


def plugin_unit(plugin, path):
    """The unit of a file of the plugin outside the engine: 'entry'
    (gstgpufft.c), 'common', a family's name, or None (a file outside the
    plugin's folders)."""
    r = os.path.relpath(path, plugin).split(os.sep)
    if r == [ENTRY]:
        return 'entry'
    if len(r) == 2 and (r[0] == COMMON or r[0] in FAMILIES):
        return r[0]
    return None


def own_file(stem, name):
    """name (a file's basename) is stem's own: stem.c/.h or stem-*.c/.h."""
    n = os.path.splitext(name)[0]
    return n == stem or n.startswith(stem + '-')


def check_plugin_units(plugin, files):
    """The plugin's folders: common/ includes and calls no family's code;
    no family includes or calls another's (so no loop between families);
    an element's main header is included only by gstgpufft.c (its
    registration) and the element's own files, and nothing but gstgpufft.c
    calls a function its main file defines; a -private.h header is
    included only by the files of its own prefix."""
    errors = []

    def rel(p):
        return os.path.relpath(p, plugin)

    headers = {}          # basename -> unit
    defined = {}          # function -> (unit, path)
    main_defs = {}        # function -> path of an element's main file
    for path, (kind, text) in files.items():
        if kind != 'element':
            continue
        u = plugin_unit(plugin, path)
        if u is None:
            errors.append(f"{rel(path)}: outside the plugin's folders "
                          f"({COMMON}/, {'/, '.join(FAMILIES)}/, {ENTRY})")
            continue
        name = os.path.basename(path)
        if name.endswith('.h'):
            headers[name] = u
        else:
            for fn in definitions(text):
                defined[fn] = (u, path)
                stem = os.path.splitext(name)[0]
                if ELEMENT_MAINS.get(stem) == u:
                    main_defs[fn] = path

    for path, (kind, text) in files.items():
        if kind != 'element':
            continue
        u = plugin_unit(plugin, path)
        if u is None:
            continue
        name = os.path.basename(path)
        for inc in includes(text):
            base = os.path.basename(inc)
            hu = headers.get(base)
            if hu is None:
                continue            # a system, engine or shader header
            stem = os.path.splitext(base)[0]
            if u == COMMON and hu in FAMILIES:
                errors.append(f'{rel(path)}: {COMMON}/ includes {inc} '
                              f'({hu}/)')
            elif u in FAMILIES and hu in FAMILIES and hu != u:
                errors.append(f'{rel(path)}: {u}/ includes {inc} from '
                              f'another family ({hu}/)')
            elif ELEMENT_MAINS.get(stem) == hu and u != 'entry' \
                    and not own_file(stem, name):
                errors.append(f"{rel(path)}: includes {inc}, an element's "
                              f"main header (only {ENTRY} and the "
                              f"element's own files may)")
            if stem.endswith('-private') \
                    and not own_file(stem[:-len('-private')], name):
                errors.append(f'{rel(path)}: includes {inc}, private to '
                              f"{stem[:-len('-private')]}'s own files")
        for fn in sorted(calls(text)):
            if fn not in defined:
                continue
            du, dpath = defined[fn]
            if dpath == path:
                continue
            if u == COMMON and du in FAMILIES:
                errors.append(f'{rel(path)}: {COMMON}/ calls {fn} '
                              f'({rel(dpath)})')
            elif u in FAMILIES and du in FAMILIES and du != u:
                errors.append(f'{rel(path)}: {u}/ calls {fn} from another '
                              f'family ({rel(dpath)})')
            elif fn in main_defs and u != 'entry':
                errors.append(f'{rel(path)}: calls {fn}, in the element '
                              f'file {rel(dpath)}')
    return errors


def through_names(files, kind, layer):
    """The functions layer's THROUGH headers declare to kind."""
    heads = THROUGH.get(kind, {}).get(layer, ())
    names = set()
    for path, (k, text) in files.items():
        if k == layer and os.path.basename(path) in heads:
            names |= declared(text)
    return names


def check_engine(plugin, files, header_kind, defined_in):
    """The engine's rules beyond one include or call: no Vulkan in util/
    and host/, and no layer reaching a header it may not use through the
    headers it includes."""
    errors = []

    def rel(p):
        return os.path.relpath(p, plugin)

    header_path = {}
    for path, (kind, _) in files.items():
        if path.endswith('.h') and kind != 'element':
            header_path[os.path.basename(path)] = path
    for path, (kind, text) in files.items():
        if kind not in ALLOWED:
            continue
        if kind in NO_VULKAN:
            for inc in re.findall(r'^\s*#\s*include\s+[<"]([^>"]+)[>"]', text,
                                  flags=re.M):
                if inc.startswith(VULKAN_HEADERS):
                    errors.append(f'{rel(path)}: {kind}/ uses no Vulkan, '
                                  f'but includes {inc}')
            for name in sorted(calls(text)):
                if re.match(r'vk[A-Z]', name):
                    errors.append(f'{rel(path)}: {kind}/ uses no Vulkan, '
                                  f'but calls {name}')
        # headers reached through the ones it includes
        seen, todo = set(), [(inc, inc) for inc in includes(text)]
        while todo:
            inc, via = todo.pop()
            base = os.path.basename(inc)
            if base in seen or base not in header_path:
                continue
            seen.add(base)
            hk = header_kind[base]
            ok = hk == 'include' or hk in ALLOWED[kind] \
                or base in THROUGH.get(kind, {}).get(hk, ())
            if not ok and via != inc:
                errors.append(f'{rel(path)}: {kind}/ reaches {base} ({hk}/, '
                              f'a layer it may not use) through {via}')
            hpath = header_path[base]
            todo += [(i, via) for i in includes(files[hpath][1])]
    return errors


def self_test_engine():
    """The engine's layers: each rule of ALLOWED, THROUGH, NO_VULKAN and
    the folders, broken once, must be reported."""
    tree = {
        'engine/include/gpufft.h': '',
        'engine/util/gpufft-u.h': '',
        'engine/host/gpufft-h.c':
            '#include "gpufft-d.h"\n#include <vulkan/vulkan.h>\n'
            'int\ngpufft_h (void)\n{\n  return vkGetX ();\n}\n',
        'engine/device/gpufft-d.h': '',
        'engine/device/gpufft-s.h': '#include "gpufft-d.h"\n',
        'engine/device/gpufft-d.c':
            'int\ngpufft_d (void)\n{\n  return 0;\n}\n',
        'engine/plan/gpufft-p-private.h': 'int gpufft_p (void);\n',
        'engine/plan/gpufft-merge.h':
            '#include "gpufft-s.h"\n#include "gpufft-p-private.h"\n'
            'int gpufft_m (void);\n',
        'engine/plan/gpufft-p.c':
            '#include "gpufft-h.h"\nint\ngpufft_p (void)\n{\n'
            '  return gpufft_h ();\n}\nint\ngpufft_m (void)\n{\n'
            '  return 0;\n}\n',
        'engine/host/gpufft-h.h': 'int gpufft_h (void);\n',
        'engine/loudness/gpufft-l.c':
            '#include "gpufft-merge.h"\n#include "gpufft-h.h"\n'
            'int\ngpufft_l (void)\n{\n'
            '  return gpufft_m () + gpufft_p () + gpufft_h () + gpufft_r ();'
            '\n}\n',
        'engine/render/gpufft-r.c':
            'int\ngpufft_r (void)\n{\n  return 0;\n}\n',
        # (the plugin's folders, whose rules self_test () tries)
        'gstgpufft.c': '',
        'common/gstgpufftc.h': '',
        'spectrum/gstgpuffts.h': '',
        'spectrogram/gstgpufftg.h': '',
        'loudness/gstgpufftl.h': '',
    }
    expect = [
        'host/ includes gpufft-d.h from device/',
        'host/ uses no Vulkan, but includes vulkan/vulkan.h',
        'host/ uses no Vulkan, but calls vkGetX',
        'loudness/ calls gpufft_p, defined in engine/plan/gpufft-p.c',
        'loudness/ calls gpufft_r',
        'loudness/ reaches gpufft-p-private.h (plan/, a layer it may not '
        'use) through gpufft-merge.h',
    ]
    missing = 'engine/include/: a folder the rules expect is missing'
    failed = 0
    for drop in (None, 'engine/include/gpufft.h'):
        with tempfile.TemporaryDirectory() as top:
            for name, text in tree.items():
                if name == drop:
                    continue
                path = os.path.join(top, name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, 'w') as f:
                    f.write(text)
            errors = check(top)
        want = expect + ([missing] if drop else [])
        missed = [e for e in want if not any(e in x for x in errors)]
        for e in errors:
            print('reported:', e)
        for e in missed:
            print('NOT REPORTED:', e)
        if missed or len(errors) != len(want):
            print(f'FAIL: {len(errors)} reported, {len(want)} expected')
            failed = 1
    if not failed:
        print(f'PASSED: every engine rule caught its fault '
              f'({len(expect) + 1})')
    return failed


def strongly_connected(graph):
    """Tarjan's algorithm (iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.add(w)
                        if w == node:
                            break
                    out.append(comp)
            elif nxt not in index:
                index[nxt] = low[nxt] = counter[0]
                counter[0] += 1
                stack.append(nxt)
                on.add(nxt)
                work.append((nxt, iter(sorted(graph.get(nxt, ())))))
            elif nxt in on:
                low[node] = min(low[node], index[nxt])
    return out


def self_test():
    """Each rule, broken once in a small tree, must be reported."""
    tree = {
        'engine/include/gpufft.h': 'int gpufft_open (void);\n',
        'engine/util/gpufft-u.c':
            '#include "gpufft-d.h"\nint\ngpufft_u (void)\n{\n'
            '  return gpufft_d ();\n}\n',
        'engine/device/gpufft-d.h': 'int gpufft_d (void);\n',
        'engine/device/gpufft-d.c':
            '#include "gpufft-p.h"\nint\ngpufft_d (void)\n{\n'
            '  return gpufft_p () + gpufft_e ();\n}\n'
            'int\ngpufft_open (void)\n{\n  return 0;\n}\n',
        'engine/device/gpufft-e.c':
            'int\ngpufft_e (void)\n{\n  return gpufft_d ();\n}\n',
        'engine/plan/gpufft-p.h': 'int gpufft_p (void);\n',
        'engine/plan/gpufft-p.c':
            'int\ngpufft_p (void)\n{\n  return gpufft_r ();\n}\n',
        'engine/render/gpufft-r.c':
            'int\ngpufft_r (void)\n{\n  return 0;\n}\n',
        'engine/host/gpufft-h.c': '',
        'engine/loudness/gpufft-l.c': '',
        # the plugin's folders; loudness/ is missing
        'gstgpufft.c': '#include "gstgpufftspectrum.h"\n',
        'common/gstgpufftshared.c':
            '#include "gstgpufftbase.h"\n'
            'static void\nf (void)\n{\n  gst_gpu_fft_layout_draw ();\n}\n',
        'spectrum/gstgpufftbase.h': '',
        'spectrum/gstgpufftbase-private.h': '',
        'spectrum/gstgpufftbase.c':
            '#include "gstgpufftbase-private.h"\n'
            'void\ngst_gpu_fft_base_frame (void)\n{\n}\n',
        'spectrum/gstgpufftbase-stream.c':
            '#include "gstgpufftspectrum.h"\n'
            '#include "gstgpufftlayout.h"\n',
        'spectrum/gstgpufftspectrum.h': '',
        'spectrum/gstgpufftspectrum.c':
            '#include "gstgpufftspectrum.h"\n'
            '#include "gstgpufftbase-private.h"\n',
        'spectrogram/gstgpufftspectrogram.h': '',
        'spectrogram/gstgpufftlayout.h': '',
        'spectrogram/gstgpufftlayout.c':
            '#include "gstgpufftlayout.h"\n'
            'void\ngst_gpu_fft_layout_draw (void)\n{\n'
            '  gst_gpu_fft_base_frame ();\n}\n',
        'spectrogram/gstgpufftspectrogram.c':
            '#include "gstgpufftspectrogram.h"\n'
            'void\ngst_gpu_fft_spectrogram_alloc (void)\n{\n}\n',
        'spectrogram/gstgpufftspectrogram-stream.c':
            'static void\nf (void)\n{\n'
            '  gst_gpu_fft_spectrogram_alloc ();\n}\n',
        'base/gstgpufftold.c': '',
        'spectrum/gstelement.c':
            '#include "gpufft.h"\n#include "gpufft-d.h"\n'
            'static int\nf (void)\n{\n  vkCreateBuffer (0);\n'
            '  return gpufft_open () + gpufft_d ();\n}\n',
    }
    expect = [
        'util/ includes gpufft-d.h from device/',
        'util/ calls gpufft_d',
        'device/ includes gpufft-p.h from plan/',
        'device/ calls gpufft_p',
        'plan/ calls gpufft_r',
        'includes the engine\'s internal header gpufft-d.h',
        'an element calls Vulkan (vkCreateBuffer)',
        'calls gpufft_d (engine/device/gpufft-d.c), which include/ does not',
        'files that call each other in a loop: engine/device/gpufft-d.c, '
        'engine/device/gpufft-e.c',
        'loudness/: a folder the rules expect is missing',
        'base/gstgpufftold.c: outside the plugin\'s folders',
        'common/gstgpufftshared.c: common/ includes gstgpufftbase.h '
        '(spectrum/)',
        'common/gstgpufftshared.c: common/ calls gst_gpu_fft_layout_draw',
        'spectrum/gstgpufftbase-stream.c: includes gstgpufftspectrum.h, an '
        'element\'s main header',
        'spectrum/gstgpufftbase-stream.c: spectrum/ includes '
        'gstgpufftlayout.h from another family (spectrogram/)',
        'spectrum/gstgpufftspectrum.c: includes gstgpufftbase-private.h, '
        'private to gstgpufftbase\'s own files',
        'spectrogram/gstgpufftspectrogram-stream.c: calls '
        'gst_gpu_fft_spectrogram_alloc, in the element file',
        'spectrogram/gstgpufftlayout.c: spectrogram/ calls '
        'gst_gpu_fft_base_frame',
    ]
    with tempfile.TemporaryDirectory() as top:
        for name, text in tree.items():
            path = os.path.join(top, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'w') as f:
                f.write(text)
        errors = check(top)
    missed = [e for e in expect if not any(e in x for x in errors)]
    for e in errors:
        print('reported:', e)
    for e in missed:
        print('NOT REPORTED:', e)
    if missed or len(errors) != len(expect):
        print(f'FAIL: {len(errors)} reported, {len(expect)} expected')
        return 1
    print(f'PASSED: every rule caught its fault ({len(expect)})')
    return 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test() | self_test_engine()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    errors = check(sys.argv[1])
    for e in errors:
        print(e)
    if errors:
        print(f'FAIL: {len(errors)} violations of the layers')
        return 1
    print('PASSED: every include and call runs in the allowed direction')
    return 0


if __name__ == '__main__':
    sys.exit(main())
