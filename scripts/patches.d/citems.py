"""
citems: a C file as a list of top-level items, found by name and edited
whole, so that the stages of a patch series can be cut out of the final
file without depending on its comments or on the text of code they leave.

An item is one top-level definition or declaration (function, struct,
union, enum, typedef, variable, macro call such as DEFINE_MUTEX(x) or
core_initcall(f)), one preprocessor line (#define, #include, #if...) or
one blank line, with the comment lines right above it. A comment followed
by a blank line (a section title) is an item of its own. Names:

  function, variable, macro   its identifier (a prototype and the
                              definition share it)
  struct/union/enum TAG       "struct TAG"...; an enum's enumerators too
  DEFINE_X(name, ...)         name
  call(arg)                   "call(arg)", e.g. "core_initcall(init)"
  #include <x>                "#include <x>"
  a comment alone             "comment before NAME", NAME the next item's
  the first comment           "file comment"
  SPDX line                   "SPDX"

Every operation names what it changes and fails (CutError) naming what it
could not find, rather than guessing.
"""
import re


class CutError(Exception):
    pass


IDENT = re.compile(r'[A-Za-z_]\w*')


def strip_code(text):
    """@text with comments blanked and string and char literals emptied;
    same length and same newlines, so offsets and lines correspond."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r'[^\n]', ' ', text[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def lines_of(text):
    return text.splitlines(keepends=True)


def depth_delta(code):
    return code.count('{') - code.count('}'), code.count('(') - code.count(')')


class Item:
    def __init__(self, kind, lines, lead, start):
        self.kind = kind        # spdx comment pp cond def blank
        self.lines = lines      # the item's own lines
        self.lead = lead        # comment lines right above it
        self.start = start      # line number of its first line, from 1
        self.names = []
        self.text = ''.join(lead + lines)   # what it becomes in the output
        self.touched = None     # the operation that changed it

    def __repr__(self):
        return '%s %s (line %d)' % (self.kind, self.names, self.start)


def _def_names(code):
    """Names of a top-level declaration or definition, from its code"""
    flat = ' '.join(code.split())
    if flat.startswith('typedef'):
        m = re.search(r'\(\s*\*\s*(\w+)\s*\)', flat)
        return [m.group(1)] if m else IDENT.findall(flat.rstrip(';'))[-1:]
    # the head: up to the first top-level '=', '{' or ';'
    cut = min([k for k in (flat.find('='), flat.find('{'), flat.find(';'))
               if k >= 0] or [len(flat)])
    head = flat[:cut]
    m = re.search(r'\b(struct|union|enum)\s+(\w+)?\s*$', head)
    if m and m.group(2) and flat[cut:] == ';' and \
            re.fullmatch(r'(struct|union|enum)\s+\w+\s*', head):
        return ['%s %s' % (m.group(1), m.group(2))]
    if m and flat[cut:cut + 1] == '{':
        names = ['%s %s' % (m.group(1), m.group(2))] if m.group(2) else []
        body = flat[cut + 1:flat.rfind('}')]
        if m.group(1) == 'enum':
            for part in body.split(','):
                e = IDENT.match(part.strip())
                if e:
                    names.append(e.group(0))
        tail = IDENT.findall(flat[flat.rfind('}') + 1:])
        names += [t for t in tail if not t.startswith('__')]
        return names
    if '(' in head:
        before = head[:head.find('(')].split()
        ident = before[-1].lstrip('*') if before else ''
        args = head[head.find('(') + 1:]
        if re.fullmatch(r'[A-Z][A-Z0-9_]*', ident):
            a = IDENT.match(args.strip())
            return [a.group(0)] if a else [ident]
        if len(before) == 1 and flat.endswith(';') and '{' not in flat:
            return ['%s(%s)' % (ident, args.split(')')[0].strip())]
        return [ident]
    head = re.sub(r'\[.*$', '', head)
    ids = [t for t in IDENT.findall(head) if not t.startswith('__')]
    return ids[-1:]


def parse(text, what):
    """Split @text (the file @what) into items"""
    code = strip_code(text)
    tl, cl = lines_of(text), lines_of(code)
    units = []          # (kind, first line index, end line index)
    i, n = 0, len(tl)
    while i < n:
        c = cl[i].strip()
        if not tl[i].strip():
            units.append(('blank', i, i + 1))
            i += 1
        elif not c:
            j = i + 1
            # a block comment: its lines are all code-less
            while j < n and tl[j].strip() and not cl[j].strip() and \
                  not tl[j].lstrip().startswith(('/*', '//')):
                j += 1
            kind = 'spdx' if i == 0 and 'SPDX-License-Identifier' in tl[i] \
                else 'comment'
            units.append((kind, i, j))
            i = j
        elif c.startswith('#'):
            j = i + 1
            while cl[j - 1].rstrip().endswith('\\') and j < n:
                j += 1
            word = re.match(r'#\s*(\w*)', c).group(1)
            kind = 'cond' if word in ('if', 'ifdef', 'ifndef', 'elif',
                                      'else', 'endif') else 'pp'
            units.append((kind, i, j))
            i = j
        else:
            braces = parens = 0
            j = i
            while j < n:
                db, dp = depth_delta(cl[j])
                braces += db
                parens += dp
                last = cl[j].rstrip()[-1:] if cl[j].strip() else ''
                j += 1
                if braces == 0 and parens == 0 and last in (';', '}'):
                    break
            else:
                raise CutError('%s: unterminated declaration at line %d'
                               % (what, i + 1))
            units.append(('def', i, j))
            i = j

    items = []
    lead = []           # comment units waiting for the item they sit on
    seen_code = False

    def flush_lead():
        for u in lead:
            it = Item('comment', tl[u[1]:u[2]], [], u[1] + 1)
            items.append(it)
        lead.clear()

    for k, (kind, a, b) in enumerate(units):
        if kind == 'comment':
            if not seen_code and not any(x.names == ['file comment']
                                         for x in items):
                it = Item('comment', tl[a:b], [], a + 1)
                it.names = ['file comment']
                items.append(it)
                continue
            lead.append((kind, a, b))
            continue
        if kind == 'blank':
            flush_lead()
            items.append(Item('blank', tl[a:b], [], a + 1))
            continue
        if kind == 'spdx':
            it = Item('spdx', tl[a:b], [], a + 1)
            it.names = ['SPDX']
            items.append(it)
            continue
        ld = [l for u in lead for l in tl[u[1]:u[2]]]
        start = lead[0][1] + 1 if lead else a + 1
        lead.clear()
        it = Item(kind, tl[a:b], ld, start)
        seen_code = True
        if kind == 'pp':
            m = re.match(r'#\s*define\s+(\w+)', cl[a].strip())
            it.names = [m.group(1)] if m else \
                [' '.join(tl[a].split('/*')[0].split())]
        elif kind == 'cond':
            it.names = [' '.join(cl[a].split())]
        else:
            it.names = _def_names(''.join(cl[a:b]))
            if not it.names:
                raise CutError('%s: cannot name the declaration at line %d'
                               % (what, a + 1))
        items.append(it)
    flush_lead()

    # a comment alone is named after the next named item
    for k, it in enumerate(items):
        if it.kind == 'comment' and not it.names:
            nxt = next((x for x in items[k + 1:]
                        if x.kind in ('def', 'pp') and x.names), None)
            it.names = ['comment before ' + (nxt.names[0] if nxt else 'end')]
    # the #if...#endif each item is in
    stack = []
    for k, it in enumerate(items):
        it.block = list(stack)
        if it.kind == 'cond':
            word = re.match(r'#\s*(\w+)', it.lines[0].strip()).group(1)
            if word.startswith('if'):
                stack.append(k)
            elif word == 'endif':
                if not stack:
                    raise CutError('%s: #endif without #if at line %d'
                                   % (what, it.start))
                items[stack.pop()].end = k
    if stack:
        raise CutError('%s: #if without #endif' % what)
    assert ''.join(it.text for it in items) == text
    return items


# ---- statements and members inside one item --------------------------------

def _stmt_range(lines, ident):
    """First and past-last line of the statement of @lines (one function)
    that mentions @ident, with the comment lines right above it"""
    code = lines_of(strip_code(''.join(lines)))
    depth, hits = 0, []
    for k, c in enumerate(code):
        # in the body only, not in the function's parameters
        if depth > 0 and re.search(r'\b%s\b' % re.escape(ident), c):
            hits.append(k)
        depth += depth_delta(c)[0]
    if not hits:
        raise CutError('no statement mentions %s' % ident)
    s = hits[0]
    while s > 0 and code[s - 1].strip() and \
            code[s - 1].rstrip()[-1] not in ';{}:' and \
            not code[s - 1].strip().startswith('#'):
        s -= 1
    indent = len(lines[s]) - len(lines[s].lstrip('\t'))
    label = re.match(r'\s*(case\b.*|default\s*):\s*$', code[s])
    e = s
    if label:
        e = s + 1
        while e < len(lines) and (not code[e].strip() or
                                  len(lines[e]) - len(lines[e].lstrip('\t')) > indent):
            e += 1
    else:
        braces = parens = 0
        while e < len(lines):
            db, dp = depth_delta(code[e])
            braces += db
            parens += dp
            last = code[e].rstrip()[-1:]
            e += 1
            if braces == 0 and parens == 0 and last in (';', '}'):
                nxt = code[e].strip() if e < len(lines) else ''
                if not nxt.startswith('else'):
                    break
    others = [h for h in hits if h >= e]
    if others:
        raise CutError('%s is in more than one statement (lines %d and %d)'
                       % (ident, hits[0] + 1, others[0] + 1))
    while s > 0 and lines[s - 1].strip() and not code[s - 1].strip():
        s -= 1
    return s, e


def _member_range(lines, member):
    """Lines of member @member of the struct whose text is @lines, with the
    comment lines right above it"""
    code = lines_of(strip_code(''.join(lines)))
    depth = 0
    k, found = 0, []
    while k < len(lines):
        d0 = depth
        depth += depth_delta(code[k])[0]
        if d0 == 1 and code[k].strip() and not code[k].strip().startswith('}'):
            a = k
            while not code[k].rstrip().endswith(';'):
                k += 1
                depth += depth_delta(code[k])[0]
            decl = re.sub(r'__\w+\s*\((?:[^()]|\([^()]*\))*\)', '',
                          ' '.join(''.join(code[a:k + 1]).split()))
            m = re.search(r'\(\s*\*\s*(\w+)\s*\)', decl)
            if m:
                name = m.group(1)
            else:
                decl = re.split(r'[\[:;]', decl)[0]
                ids = [t for t in IDENT.findall(decl) if not t.startswith('__')]
                name = ids[-1] if ids else None
            if name == member:
                s = a
                while s > 0 and lines[s - 1].strip() and not code[s - 1].strip():
                    s -= 1
                found.append((s, k + 1))
        k += 1
    if len(found) != 1:
        raise CutError('no member %s' % member if not found
                       else 'member %s found %d times' % (member, len(found)))
    return found[0]


def _width(line):
    """Columns of @line, tabs to the next multiple of 8"""
    return len(line.rstrip('\n').expandtabs(8))


def _rejoin(lines, a, b):
    """Lines @a..@b-1 (one statement or declarator) as one line if it fits
    in 80 columns"""
    if b - a < 2:
        return lines
    one = lines[a].rstrip('\n')
    for line in lines[a + 1:b]:
        one += ('' if one.endswith('(') else ' ') + line.strip()
    if _width(one) > 80:
        return lines
    return lines[:a] + [one + '\n'] + lines[b:]


def _tidy(lines):
    """No blank line right after a { or before a }, nor two in a row, as
    dropping statements can leave"""
    out = []
    for k, line in enumerate(lines):
        if not line.strip():
            prev = out[-1].split('//')[0].rstrip() if out else ''
            nxt = lines[k + 1].strip() if k + 1 < len(lines) else ''
            if prev.endswith('{') or not prev or nxt.startswith('}'):
                continue
        out.append(line)
    return out


def _args(code, open_at):
    """Spans (start, end) of the comma-separated arguments or parameters
    of the parenthesis at @open_at of @code, and the closing one"""
    depth, start, spans = 0, open_at + 1, []
    for k in range(open_at, len(code)):
        c = code[k]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
            if depth == 0:
                spans.append((start, k))
                return spans, k
        elif c == ',' and depth == 1:
            spans.append((start, k))
            start = k + 1
    raise CutError('unbalanced parentheses')


def _cut_arg(text, spans, k):
    """@text less argument @k of @spans, with its comma; the next one
    takes its place, on its line"""
    if len(spans) == 1:
        return text[:spans[0][0]] + text[spans[0][1]:]
    if k == len(spans) - 1:
        return text[:spans[k - 1][1]] + text[spans[k][1]:]
    a, b = spans[k][0], spans[k + 1][0]
    a += len(text[a:]) - len(text[a:].lstrip(' \t\n'))
    b += len(text[b:]) - len(text[b:].lstrip(' \t\n'))
    return text[:a] + text[b:]


# ---- a file being cut ------------------------------------------------------

class Cut:
    """@text (@what, for messages) being turned into an earlier stage"""

    def __init__(self, text, what):
        self.what = what
        self.items = parse(text, what)
        self.log = []

    def _fail(self, msg):
        raise CutError('%s: %s' % (self.what, msg))

    def find(self, name):
        """The items named @name: a function's prototype and definition"""
        found = [it for it in self.items if name in it.names]
        if not found:
            self._fail('no top-level item named %r' % name)
        return found

    def one(self, name):
        found = self.find(name)
        if len(found) != 1:
            self._fail('%d items named %r (lines %s)' % (
                len(found), name, ', '.join(str(x.start) for x in found)))
        return found[0]

    def _set(self, it, text, op):
        if it.touched == 'drop':
            self._fail('%s of %r, which was dropped' % (op, it.names[0]))
        it.text = text
        it.touched = op

    def drop(self, *names):
        """Remove the items named @names, their comments with them"""
        for name in names:
            for it in self.find(name):
                self._set(it, '', 'drop')
            self.log.append('drop %s' % name)

    def drop_prototype(self, name):
        """Remove the prototype of function @name, not its definition"""
        found = [it for it in self.find(name) if it.touched != 'drop' and
                 '{' not in strip_code(it.text)]
        if len(found) != 1:
            self._fail('%d prototypes of %r' % (len(found), name))
        self._set(found[0], '', 'drop')
        self.log.append('drop the prototype of %s' % name)

    def drop_block(self, name):
        """Remove the #if...#endif block that holds @name"""
        it = self.one(name)
        if not it.block:
            self._fail('%r is in no #if block' % name)
        a = it.block[-1]
        for x in self.items[a:self.items[a].end + 1]:
            self._set(x, '', 'drop')
        self.log.append('drop the #if block of %s' % name)

    def drop_section(self, name):
        """Remove a section: the comment alone above @name (its title),
        @name and the items after it up to the next comment alone"""
        title = self.one('comment before ' + name)
        k = self.items.index(title)
        self._set(title, '', 'drop')
        dropped = []
        for it in self.items[k + 1:]:
            if it.kind == 'comment':
                break
            self._set(it, '', 'drop')
            dropped += it.names[:1]
        self.log.append('drop section %s' % ', '.join(dropped))

    def replace(self, name, text):
        """Put @text (with its comment) in the place of item @name"""
        self._set(self.one(name), text, 'replace')
        self.log.append('replace %s' % name)

    def insert_before(self, name, text):
        it = self.one(name)
        self._set(it, text + it.text, it.touched or 'insert')
        self.log.append('insert before %s' % name)

    def comment(self, name, text):
        """Give item @name the comment @text (lines, with the markers),
        or none if @text is empty"""
        it = self.one(name)
        if it.kind == 'comment':
            self._set(it, text, 'comment')
        else:
            self._set(it, text + ''.join(it.lines), 'comment')
        self.log.append('comment of %s' % name)

    def _lines(self, name):
        """The definition named @name (not its prototype), and its lines"""
        found = self.find(name)
        if len(found) > 1:
            found = [x for x in found if '{' in strip_code(x.text)]
        if len(found) != 1:
            self._fail('%d definitions named %r' % (len(found), name))
        it = found[0]
        if it.touched == 'drop':
            self._fail('%r was dropped' % name)
        return it, lines_of(it.text)

    def drop_stmt(self, name, ident, new=''):
        """Remove (or replace by @new) the statement of function @name
        that mentions @ident, with its comment; a case label takes its
        statements with it"""
        it, lines = self._lines(name)
        try:
            a, b = _stmt_range(lines, ident)
        except CutError as e:
            self._fail('%s: %s' % (name, e))
        lines = lines[:a] + lines_of(new) + lines[b:]
        self._set(it, ''.join(_tidy(lines)), 'edit')
        self.log.append('%s statement of %s with %s' %
                        ('replace' if new else 'drop', name, ident))

    def unwrap_stmt(self, name, ident):
        """Replace the if statement of function @name that mentions
        @ident in its condition by its body: the code it guarded runs
        always in the earlier stage"""
        it, lines = self._lines(name)
        try:
            a, b = _stmt_range(lines, ident)
        except CutError as e:
            self._fail('%s: %s' % (name, e))
        code = lines_of(strip_code(''.join(lines)))
        s = a
        while not code[s].strip():      # its comment stays
            s += 1
        if not re.match(r'\s*if\b', code[s]):
            self._fail('%s: the statement with %s is no if' % (name, ident))
        c, parens = s, 0
        while True:
            parens += depth_delta(code[c])[1]
            if parens == 0:
                break
            c += 1
        body = lines[c + 1:b]
        if code[c].rstrip().endswith('{'):
            if code[b - 1].strip() != '}':
                self._fail('%s: the if with %s has an else' % (name, ident))
            body = body[:-1]
        body = [l[1:] if l.startswith('\t') else l for l in body]
        lines = lines[:s] + body + lines[b:]
        self._set(it, ''.join(_tidy(lines)), 'edit')
        self.log.append('unwrap the if of %s with %s' % (name, ident))

    def drop_param(self, name, param):
        """Remove parameter @param of function @name, from its prototype
        too; the calls are for drop_arg()"""
        for it in self.find(name):
            if it.touched == 'drop':
                self._fail('%r was dropped' % name)
            code = strip_code(it.text)
            m = re.search(r'\b%s\s*\(' % re.escape(name), code)
            spans, close = _args(code, m.end() - 1)
            names = [([t for t in IDENT.findall(code[a:b])
                       if not t.startswith('__')] or [''])[-1] for a, b in spans]
            if param not in names:
                self._fail('%s has no parameter %s' % (name, param))
            text = _cut_arg(it.text, spans, names.index(param))
            _, close = _args(strip_code(text), m.end() - 1)
            first = text[:m.start()].count('\n')
            last = text[:close].count('\n')
            text = ''.join(_rejoin(lines_of(text), first, last + 1))
            self._set(it, text, 'edit')
        self.log.append('drop parameter %s of %s' % (param, name))

    def drop_arg(self, name, callee, k):
        """Remove argument @k (from 0) of every call to @callee in @name"""
        it, _ = self._lines(name)
        text, n = it.text, 0
        while True:
            code = strip_code(text)
            calls = list(re.finditer(r'\b%s\s*\(' % re.escape(callee), code))
            if n >= len(calls):
                break
            m = calls[n]
            spans, close = _args(code, m.end() - 1)
            if k >= len(spans):
                self._fail('%s: a call of %s has no argument %d' % (name, callee, k))
            text = _cut_arg(text, spans, k)
            _, close = _args(strip_code(text), m.end() - 1)
            first = text[:m.start()].count('\n')
            last = text[:close].count('\n')
            text = ''.join(_rejoin(lines_of(text), first, last + 1))
            n += 1
        if not n:
            self._fail('%s does not call %s' % (name, callee))
        self._set(it, text, 'edit')
        self.log.append('drop argument %d of %s in %s' % (k, callee, name))

    def drop_member(self, name, *members, new=None):
        """Remove members of struct @name (or replace the one by @new)"""
        it, lines = self._lines(name)
        for m in members:
            try:
                a, b = _member_range(lines, m)
            except CutError as e:
                self._fail('%s: %s' % (name, e))
            lines[a:b] = lines_of(new) if new is not None else []
        self._set(it, ''.join(lines), 'edit')
        self.log.append('%s member(s) %s of %s' %
                        ('replace' if new else 'drop', ', '.join(members), name))

    def edit(self, name, old, new, count=1):
        """Replace text @old by @new inside item @name, which must hold it
        exactly @count times: for what no rule above can say"""
        it, _ = self._lines(name)
        if it.text.count(old) != count:
            self._fail('%s: expected %d of %r, found %d' % (
                name, count, old[:60], it.text.count(old)))
        self._set(it, it.text.replace(old, new), 'edit')
        self.log.append('edit %s' % name)

    def result(self):
        out = ''.join(it.text for it in self.items)
        # no blank line twice, nor right after a { or before a }, from drops
        out = re.sub(r'\n\n\n+', '\n\n', out)
        return out


# ---- checks ---------------------------------------------------------------

def defined(text, what):
    """The names @text defines at top level (not comments, calls or
    includes): identifiers, and "struct X" for tags"""
    names = set()
    for it in parse(text, what):
        if it.kind in ('def', 'pp'):
            names.update(n for n in it.names
                         if IDENT.fullmatch(n) or
                         re.fullmatch(r'(struct|union|enum) \w+', n))
    return names


def dangling(text, gone):
    """The names of @gone that the code of @text still uses (member
    accesses such as ->name are not uses)"""
    code = strip_code(text)
    used = set()
    for m in re.finditer(r'(->|\.)?\s*\b(?:(struct|union|enum)\s+)?(\w+)', code):
        if m.group(1):
            continue
        name = '%s %s' % (m.group(2), m.group(3)) if m.group(2) else m.group(3)
        if name in gone:
            used.add(name)
    return sorted(used)


def unused(text, what, exempt=()):
    """Names the file @text defines at top level and never uses: static
    functions and variables, macros, enumerators, struct tags"""
    items = parse(text, what)
    code = strip_code(text)
    count = {}
    for t in IDENT.findall(code):
        count[t] = count.get(t, 0) + 1
    defined = {}
    for it in items:
        if it.kind not in ('def', 'pp'):
            continue
        for name in it.names:
            key = name.split()[-1] if name.startswith(('struct ', 'enum ',
                                                       'union ')) else name
            if IDENT.fullmatch(key):
                defined[key] = defined.get(key, 0) + 1
    return sorted(n for n, k in defined.items()
                  if count.get(n, 0) <= k and n not in exempt)
